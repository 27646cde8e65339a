// Stream harness of the Verilator verify backend (aesdse/verify/verilator.py): plays a script of
// aesdse.verify.script on a Verilated model of any design whose ports are amaranth.lib.stream
// interfaces, in the text and cycle protocol of stream_player.h (the loop shared with
// cxxrtl_harness.cc), so aesdse.verify.cxxrtl.play_compiled reads the report of either model.
//
// Written once for every core, and compiled once per machine: it reaches the model only through
// verilator_design.h (the table of ports and Vtop::eval(), which verilator_design.cc provides,
// compiled with each design). Each sub-step where the CXXRTL harness calls cxxrtl_step, this one
// evaluates the model.

#include <iostream>
#include <string>
#include <vector>

#include "verilator_design.h"
#include "stream_player.h"

namespace {

std::vector<aesdse::Port> ports;

// The design's ports through the table, for aesdse::play.
struct VerilatorDesign {
    using Port = aesdse::Port;

    Port *find(const std::string &name) {
        for (Port &p : ports)
            if (p.name == name)
                return &p;
        return nullptr;
    }

    Port *port(const std::string &name, bool input) {
        Port *object = find(name);
        if (!object)
            aesdse::fail("the design has no port " + name);
        if (input && !object->input)
            aesdse::fail("port " + name + " cannot be driven");
        return object;
    }

    // Apply the driven inputs, evaluate, and read every port back (the CXXRTL step).
    size_t step() {
        for (Port &p : ports)
            if (p.input)
                p.write(p.member, p.next.data());
        aesdse::eval_model();
        for (Port &p : ports)
            p.read(p.member, p.curr.data());
        return 1;
    }
};

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    aesdse::open_model(ports);
    VerilatorDesign design;
    int status = aesdse::play(design);
    aesdse::close_model();
    return status;
}
