// The seam between the Verilator harness (verilator_harness.cc, compiled once per machine) and a
// design's model (verilator_design.cc, compiled with each design's C++): the harness reaches the
// model through these three functions and the table of ports they fill, so it includes no
// header Verilator writes and is compiled before the design is Verilated (aesdse.verify.verilator).

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aesdse {

// A top-level port of the model: what the CXXRTL harness gets from cxxrtl_get. `write` copies
// 32-bit chunks (least significant first) into the model's member, `read` copies them out.
struct Port {
    std::string name;
    size_t width;
    bool input;
    void *member;
    void (*write)(void *, const uint32_t *);
    void (*read)(const void *, uint32_t *);
    std::vector<uint32_t> next, curr;
};

// Construct the model (in reset state, its context on one thread) and append its ports.
void open_model(std::vector<Port> &ports);
// Evaluate the model once (Vtop::eval()).
void eval_model();
// Run the model's final blocks and destroy it.
void close_model();

} // namespace aesdse
