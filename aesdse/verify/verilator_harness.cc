// Stream harness of the Verilator verify backend (aesdse/verify/verilator.py): plays a script of
// aesdse.verify.script on a Verilated model of any design whose ports are amaranth.lib.stream
// interfaces, in the text and cycle protocol of stream_player.h (the loop shared with
// cxxrtl_harness.cc), so aesdse.verify.cxxrtl.play_compiled reads
// the report of either model.
//
// Written once for every core. Verilator has no run-time lookup of ports by name (besides VPI,
// which slows the model), so Python writes a small header per design, aesdse_ports.h, from the
// ports of the Verilated class (Vtop.h): AESDSE_PORTS(X) expands X(member, "name", width, input)
// once per top-level port, with the port's Amaranth name (a stream NAME is NAME__valid,
// NAME__ready, NAME__payload) and its member of Vtop (Verilator writes "__" as "___05F").
// Each sub-step where the CXXRTL harness calls cxxrtl_step, this one calls Vtop::eval().

#include <cstdint>
#include <string>
#include <vector>

#include "Vtop.h"
#include "verilated.h"
#include "aesdse_ports.h"
#include "stream_player.h"

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

// A port of the table: what the CXXRTL harness gets from cxxrtl_get.
struct Port {
    std::string name;
    size_t width;
    bool input;
    void *member;
    void (*write)(void *, const uint32_t *);
    void (*read)(const void *, uint32_t *);
    std::vector<uint32_t> next, curr;
};

template <class T> Port make_port(T &member, const char *name, size_t width, bool input) {
    return Port{name, width, input, &member,
                [](void *m, const uint32_t *v) { store(*static_cast<T *>(m), v); },
                [](const void *m, uint32_t *v) { load(*static_cast<const T *>(m), v); },
                std::vector<uint32_t>((width + 31) / 32 + 1), std::vector<uint32_t>((width + 31) / 32 + 1)};
}

std::vector<Port> ports;

Port *find_port(const std::string &name) {
    for (Port &p : ports)
        if (p.name == name)
            return &p;
    return nullptr;
}

// Apply the driven inputs, evaluate, and read every port back (the CXXRTL step).
size_t step_model(Vtop &top) {
    for (Port &p : ports)
        if (p.input)
            p.write(p.member, p.next.data());
    top.eval();
    for (Port &p : ports)
        p.read(p.member, p.curr.data());
    return 1;
}

Port *port(const std::string &name, bool input) {
    Port *object = find_port(name);
    if (!object)
        aesdse::fail("the design has no port " + name);
    if (input && !object->input)
        aesdse::fail("port " + name + " cannot be driven");
    return object;
}

// The design's ports through the table above, for aesdse::play.
struct VerilatorDesign {
    using Port = ::Port;
    Vtop &top;

    Port *find(const std::string &name) { return find_port(name); }
    Port *port(const std::string &name, bool input) { return ::port(name, input); }
    size_t step() { return step_model(top); }
};

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    VerilatedContext context;
    Vtop top(&context);
#define AESDSE_PORT(member, name, width, input) ports.push_back(make_port(top.member, name, width, input));
    AESDSE_PORTS(AESDSE_PORT)
#undef AESDSE_PORT
    VerilatorDesign design{top};
    int status = aesdse::play(design);
    top.final();
    return status;
}
