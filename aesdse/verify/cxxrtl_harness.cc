// Stream harness of the compiled (CXXRTL) verify backend: plays a script of aesdse.verify.script
// on any design whose ports are amaranth.lib.stream interfaces, and prints every transfer with
// the index of the clock edge it happened at.
//
// Written once for every core: ports are found by name at run time through the CXXRTL C API
// (cxxrtl_capi.h, shipped with Yosys), so the design is compiled with write_cxxrtl -g2 or
// higher (-g1 leaves out the output ports) and linked with this file. A stream interface NAME is the three ports NAME__valid,
// NAME__ready and NAME__payload (the names Amaranth's RTLIL back end gives a flattened
// wiring.Signature).
//
// The protocol is the one aesdse.verify.script documents, and the amaranth.sim player there
// implements the same cycle by cycle:
//   * between two edges of the sync clock the harness drives the inputs of that cycle: the valid
//     and payload of the pending input transfer (one input transfer at a time, in script order,
//     after its idle gap), and each output stream's ready from its cyclic pattern;
//   * just before the edge it samples: an input transfer happens when valid and ready are both
//     high, an output transfer when the harness's ready and the core's valid are both high;
//   * the edge is counted (the first edge is 1) and the transfers are recorded with it.
// Clock domains besides sync run at integer multiples, edge-aligned with sync.
//
// Script (stdin, whitespace-separated tokens):
//   aesdse-script 1
//   max_cycles N
//   clocks K   then K times: PORT MULTIPLIER         (the sync clock has multiplier 1)
//   zeros Z    then Z times: PORT                    (held at 0 if present: resets)
//   inputs I   then I times: NAME                    (input stream interfaces)
//   outputs O  then O times: NAME COUNT PATTERN      (expected transfers; ready pattern of 0/1)
//   items T    then T times: INPUT GAP HEXPAYLOAD    (input transfers in order)
// Report (stdout), one line per event:
//   in ITEM CYCLE            an input transfer
//   out OUTPUT CYCLE HEX     an output transfer
//   done CYCLE deltas D      every transfer happened (D: delta cycles CXXRTL took)
//   hang CYCLE ...           max_cycles passed first (what was still awaited)
// Exit status 0 for done or hang; 2 for a script or port error (message on stderr).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <cxxrtl/capi/cxxrtl_capi.h>

extern "C" cxxrtl_toplevel cxxrtl_design_create();

namespace {

[[noreturn]] void fail(const std::string &message) {
    std::cerr << "harness: " << message << std::endl;
    std::exit(2);
}

cxxrtl_object *port(cxxrtl_handle design, const std::string &name, bool input) {
    cxxrtl_object *object = cxxrtl_get(design, name.c_str());
    if (!object)
        fail("the design has no port " + name);
    if (input && !object->next)
        fail("port " + name + " cannot be driven");
    return object;
}

size_t chunks(const cxxrtl_object *object) { return (object->width + 31) / 32; }

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

void set_bit(cxxrtl_object *object, bool value) { object->next[0] = value ? 1 : 0; }

void set_value(cxxrtl_object *object, const std::vector<uint32_t> &value) {
    for (size_t n = 0; n < chunks(object); n++)
        object->next[n] = value[n];
}

struct Stream {
    std::string name;
    cxxrtl_object *valid, *ready, *payload;
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
    cxxrtl_object *port;
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

Stream stream(cxxrtl_handle design, const std::string &name, bool input) {
    Stream s;
    s.name = name;
    s.valid = port(design, name + "__valid", input);
    s.ready = port(design, name + "__ready", !input);
    s.payload = port(design, name + "__payload", input);
    return s;
}

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    cxxrtl_handle design = cxxrtl_create(cxxrtl_design_create());
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
        clock.port = port(design, token(in), true);
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
        if (cxxrtl_object *reset = cxxrtl_get(design, token(in).c_str()))
            set_bit(reset, false);
    }

    expect(in, "inputs");
    std::vector<Stream> inputs;
    for (size_t n = number(in); n-- > 0;)
        inputs.push_back(stream(design, token(in), true));
    expect(in, "outputs");
    std::vector<Output> outputs;
    for (size_t n = number(in); n-- > 0;) {
        Output o;
        static_cast<Stream &>(o) = stream(design, token(in), false);
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
    cxxrtl_step(design);

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
            deltas += cxxrtl_step(design);
        }
        bool input_fired = driving && inputs[items[next_item].input].ready->curr[0];
        std::vector<std::string> fired(outputs.size());
        for (size_t n = 0; n < outputs.size(); n++)
            if (ready[n] && outputs[n].valid->curr[0])
                fired[n] = format_hex(outputs[n].payload->curr, chunks(outputs[n].payload));
        // The edge of every clock.
        for (const Clock &clock : clocks)
            set_bit(clock.port, true);
        deltas += cxxrtl_step(design);
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
    cxxrtl_destroy(design);
    return 0;
}
