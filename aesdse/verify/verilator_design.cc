// The design side of the Verilator harness (verilator_design.h): compiled with each design's
// C++ (aesdse.verify.verilator), it constructs the Verilated class Vtop and describes its ports
// for the harness, which is compiled once per machine.
//
// Verilator has no run-time lookup of ports by name (besides VPI, which slows the model), so
// Python writes a small header per design, aesdse_ports.h, from the ports of the Verilated class
// (Vtop.h): AESDSE_PORTS(X) expands X(member, "name", width, input) once per top-level port,
// with the port's Amaranth name (a stream NAME is NAME__valid, NAME__ready, NAME__payload) and
// its member of Vtop (Verilator writes "__" as "___05F").

#include <cstdint>
#include <memory>
#include <vector>

#include "Vtop.h"
#include "verilated.h"
#include "aesdse_ports.h"
#include "verilator_design.h"

namespace {

// Verilator keeps a port of up to 8, 16, 32 or 64 bits in CData, SData, IData or QData, a wider
// one in VlWide<words>; values cross the table as 32-bit chunks, least significant first.
template <class T> void store(T &member, const uint32_t *value) { member = static_cast<T>(value[0]); }
void store(QData &member, const uint32_t *value) {
    member = static_cast<QData>(value[0]) | (static_cast<QData>(value[1]) << 32);
}
template <size_t N> void store(VlWide<N> &member, const uint32_t *value) {
    for (size_t n = 0; n < N; n++)
        member[n] = value[n];
}
template <class T> void load(const T &member, uint32_t *value) { value[0] = member; }
void load(const QData &member, uint32_t *value) {
    value[0] = static_cast<uint32_t>(member);
    value[1] = static_cast<uint32_t>(member >> 32);
}
template <size_t N> void load(const VlWide<N> &member, uint32_t *value) {
    for (size_t n = 0; n < N; n++)
        value[n] = member[n];
}

template <class T> aesdse::Port make_port(T &member, const char *name, size_t width, bool input) {
    return aesdse::Port{name, width, input, &member,
                        [](void *m, const uint32_t *v) { store(*static_cast<T *>(m), v); },
                        [](const void *m, uint32_t *v) { load(*static_cast<const T *>(m), v); },
                        std::vector<uint32_t>((width + 31) / 32 + 1),
                        std::vector<uint32_t>((width + 31) / 32 + 1)};
}

std::unique_ptr<VerilatedContext> context;
std::unique_ptr<Vtop> top;

} // namespace

void aesdse::open_model(std::vector<Port> &ports) {
    context = std::make_unique<VerilatedContext>();
    // The model is Verilated for one thread; a context left at its default (the machine's
    // parallelism) would start a pool of idle worker threads for it. With one thread it starts
    // none, so the runtime library need not contain the pool (aesdse.verify.verilator).
    context->threads(1);
    top = std::make_unique<Vtop>(context.get());
#define AESDSE_PORT(member, name, width, input) ports.push_back(make_port(top->member, name, width, input));
    AESDSE_PORTS(AESDSE_PORT)
#undef AESDSE_PORT
}

void aesdse::eval_model() { top->eval(); }

void aesdse::close_model() {
    top->final();
    top.reset();
    context.reset();
}
