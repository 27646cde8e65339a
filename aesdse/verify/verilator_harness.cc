// Stream harness of the Verilator verify backend (aesdse/verify/verilator.py): plays a script of
// aesdse.verify.script on a Verilated model of any design whose ports are amaranth.lib.stream
// interfaces, in the text protocol and cycle protocol of cxxrtl_harness.cc (its header documents
// both; the loop below is that harness's loop), so aesdse.verify.cxxrtl.play_compiled reads
// the report of either model.
//
// Written once for every core. Verilator has no run-time lookup of ports by name (besides VPI,
// which slows the model), so Python writes a small header per design, aesdse_ports.h, from the
// ports of the Verilated class (Vtop.h): AESDSE_PORTS(X) expands X(member, "name", width, input)
// once per top-level port, with the port's Amaranth name (a stream NAME is NAME__valid,
// NAME__ready, NAME__payload) and its member of Vtop (Verilator writes "__" as "___05F").
// Each sub-step where the CXXRTL harness calls cxxrtl_step, this one calls Vtop::eval().

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "Vtop.h"
#include "verilated.h"
#include "aesdse_ports.h"

namespace {

[[noreturn]] void fail(const std::string &message) {
    std::cerr << "harness: " << message << std::endl;
    std::exit(2);
}

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
size_t step(Vtop &top) {
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
        fail("the design has no port " + name);
    if (input && !object->input)
        fail("port " + name + " cannot be driven");
    return object;
}

size_t chunks(const Port *object) { return (object->width + 31) / 32; }

// Parse a hexadecimal number into 32-bit chunks, least significant first.
std::vector<uint32_t> parse_hex(const std::string &text, size_t count) {
    std::vector<uint32_t> value(count, 0);
    size_t bit = 0;
    for (size_t n = text.size(); n-- > 0; bit += 4) {
        char c = text[n];
        uint32_t digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (digit > 15)
            fail("bad hexadecimal payload " + text);
        if (digit && bit / 32 >= count)
            fail("payload " + text + " is wider than its port");
        if (bit / 32 < count)
            value[bit / 32] |= digit << (bit % 32);
    }
    return value;
}

std::string format_hex(const uint32_t *value, size_t count) {
    std::string text;
    char buffer[9];
    for (size_t n = count; n-- > 0;) {
        std::snprintf(buffer, sizeof buffer, "%08x", value[n]);
        text += buffer;
    }
    return text;
}

void set_bit(Port *object, bool value) { object->next[0] = value ? 1 : 0; }

void set_value(Port *object, const std::vector<uint32_t> &value) {
    for (size_t n = 0; n < chunks(object); n++)
        object->next[n] = value[n];
}

struct Stream {
    std::string name;
    Port *valid, *ready, *payload;
};

struct Output : Stream {
    size_t expected = 0, received = 0;
    std::string pattern;
};

struct Item {
    size_t input, gap;
    std::vector<uint32_t> payload;
};

struct Clock {
    Port *port;
    unsigned multiplier;
};

std::string token(std::istream &in) {
    std::string text;
    if (!(in >> text))
        fail("script ends early");
    return text;
}

size_t number(std::istream &in) { return std::stoull(token(in)); }

void expect(std::istream &in, const std::string &word) {
    if (token(in) != word)
        fail("script: expected " + word);
}

Stream stream(const std::string &name, bool input) {
    Stream s;
    s.name = name;
    s.valid = port(name + "__valid", input);
    s.ready = port(name + "__ready", !input);
    s.payload = port(name + "__payload", input);
    return s;
}

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    VerilatedContext context;
    Vtop top(&context);
#define AESDSE_PORT(member, name, width, input) ports.push_back(make_port(top.member, name, width, input));
    AESDSE_PORTS(AESDSE_PORT)
#undef AESDSE_PORT
    std::istream &in = std::cin;
    expect(in, "aesdse-script");
    if (number(in) != 1)
        fail("unknown script version");
    expect(in, "max_cycles");
    size_t max_cycles = number(in);

    expect(in, "clocks");
    std::vector<Clock> clocks(number(in));
    unsigned ticks = 2;     // sub-steps of a sync period: twice the largest multiplier
    for (Clock &clock : clocks) {
        clock.port = port(token(in), true);
        clock.multiplier = number(in);
        if (clock.multiplier < 1 || clock.multiplier > 16)
            fail("clock multiplier out of range");
        ticks = std::max(ticks, 2 * clock.multiplier);
    }
    for (const Clock &clock : clocks)
        if (ticks % (2 * clock.multiplier))
            fail("clock multipliers must divide the largest one");
    expect(in, "zeros");
    for (size_t n = number(in); n-- > 0;) {
        // A domain without a reset has no reset port.
        if (Port *reset = find_port(token(in)))
            set_bit(reset, false);
    }

    expect(in, "inputs");
    std::vector<Stream> inputs;
    for (size_t n = number(in); n-- > 0;)
        inputs.push_back(stream(token(in), true));
    expect(in, "outputs");
    std::vector<Output> outputs;
    for (size_t n = number(in); n-- > 0;) {
        Output o;
        static_cast<Stream &>(o) = stream(token(in), false);
        o.expected = number(in);
        o.pattern = token(in);
        outputs.push_back(o);
    }
    expect(in, "items");
    std::vector<Item> items(number(in));
    for (Item &item : items) {
        item.input = number(in);
        if (item.input >= inputs.size())
            fail("item on an unknown input");
        item.gap = number(in);
        item.payload = parse_hex(token(in), chunks(inputs[item.input].payload));
    }

    for (const Stream &s : inputs)
        set_bit(s.valid, false);
    for (const Output &o : outputs)
        set_bit(o.ready, false);
    for (const Clock &clock : clocks)
        set_bit(clock.port, false);
    step(top);

    size_t next_item = 0, last_input_edge = 0, pending_outputs = 0;
    for (const Output &o : outputs)
        pending_outputs += o.expected;
    std::string report;
    char line[64];
    size_t edge = 0, deltas = 0;    // delta cycles: a cost measure of the model
    while (next_item < items.size() || pending_outputs > 0) {
        if (edge >= max_cycles)
            break;
        // Drive the inputs of the cycle that ends at edge + 1.
        bool driving = next_item < items.size()
                       && edge >= last_input_edge + items[next_item].gap;
        for (size_t n = 0; n < inputs.size(); n++) {
            bool mine = driving && items[next_item].input == n;
            set_bit(inputs[n].valid, mine);
            if (mine)
                set_value(inputs[n].payload, items[next_item].payload);
        }
        std::vector<bool> ready(outputs.size());
        for (size_t n = 0; n < outputs.size(); n++) {
            Output &o = outputs[n];
            ready[n] = o.received < o.expected && o.pattern[edge % o.pattern.size()] == '1';
            set_bit(o.ready, ready[n]);
        }
        // The faster clocks' edges inside the period (none before the first edge, as in
        // amaranth.sim where every clock's first rising edge is the sync clock's), then the
        // sampling point. A clock of multiplier m is high for the first half of each of its
        // periods of ticks / m sub-steps, the sync edge being sub-step 0.
        for (unsigned t = 1; t < ticks; t++) {
            for (const Clock &clock : clocks) {
                unsigned period = ticks / clock.multiplier;
                set_bit(clock.port, edge > 0 && t % period < period / 2);
            }
            deltas += step(top);
        }
        bool input_fired = driving && inputs[items[next_item].input].ready->curr[0];
        std::vector<std::string> fired(outputs.size());
        for (size_t n = 0; n < outputs.size(); n++)
            if (ready[n] && outputs[n].valid->curr[0])
                fired[n] = format_hex(outputs[n].payload->curr.data(), chunks(outputs[n].payload));
        // The edge of every clock.
        for (const Clock &clock : clocks)
            set_bit(clock.port, true);
        deltas += step(top);
        edge++;
        if (input_fired) {
            std::snprintf(line, sizeof line, "in %zu %zu\n", next_item, edge);
            report += line;
            next_item++;
            last_input_edge = edge;
        }
        for (size_t n = 0; n < outputs.size(); n++)
            if (ready[n] && !fired[n].empty()) {
                std::snprintf(line, sizeof line, "out %zu %zu ", n, edge);
                report += line + fired[n] + "\n";
                outputs[n].received++;
                pending_outputs--;
            }
    }
    std::cout << report;
    if (next_item < items.size() || pending_outputs > 0) {
        std::cout << "hang " << edge << " input_item " << next_item;
        for (size_t n = 0; n < outputs.size(); n++)
            std::cout << " output " << outputs[n].name << " " << outputs[n].received << "/"
                      << outputs[n].expected;
        std::cout << "\n";
    } else {
        std::cout << "done " << edge << " deltas " << deltas << "\n";
    }
    top.final();
    return 0;
}
