// The script player shared by the compiled verify backends' harnesses (cxxrtl_harness.cc,
// verilator_harness.cc): the text protocol, the cycle protocol and the loop, written once and
// generic over how a harness reaches its model's ports.
//
// A harness passes play() a Design with
//   using Port = ...;                         a port with `width` (bits) and the 32-bit chunks
//                                             `next` (driven) and `curr` (current), least
//                                             significant first, indexable;
//   Port *port(const std::string &, bool input)  the named port (fails when missing, or when an
//                                             input cannot be driven);
//   Port *find(const std::string &)           the named port or nullptr;
//   size_t step()                             settle the model; returns the delta cycles taken.
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
//   done CYCLE deltas D      every transfer happened (D: delta cycles the model took)
//   hang CYCLE ...           max_cycles passed first (what was still awaited)
// Exit status 0 for done or hang; 2 for a script or port error (message on stderr).

#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace aesdse {

[[noreturn]] inline void fail(const std::string &message) {
    std::cerr << "harness: " << message << std::endl;
    std::exit(2);
}

template <class P> size_t chunks(const P *object) { return (object->width + 31) / 32; }

// Parse a hexadecimal number into 32-bit chunks, least significant first.
inline std::vector<uint32_t> parse_hex(const std::string &text, size_t count) {
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

template <class Values> std::string format_hex(const Values &value, size_t count) {
    std::string text;
    char buffer[9];
    for (size_t n = count; n-- > 0;) {
        std::snprintf(buffer, sizeof buffer, "%08x", value[n]);
        text += buffer;
    }
    return text;
}

template <class P> void set_bit(P *object, bool value) { object->next[0] = value ? 1 : 0; }

template <class P> void set_value(P *object, const std::vector<uint32_t> &value) {
    for (size_t n = 0; n < chunks(object); n++)
        object->next[n] = value[n];
}

template <class P> struct Stream {
    std::string name;
    P *valid, *ready, *payload;
};

template <class P> struct Output : Stream<P> {
    size_t expected = 0, received = 0;
    std::string pattern;
};

struct Item {
    size_t input, gap;
    std::vector<uint32_t> payload;
};

template <class P> struct Clock {
    P *port;
    unsigned multiplier;
};

inline std::string token(std::istream &in) {
    std::string text;
    if (!(in >> text))
        fail("script ends early");
    return text;
}

inline size_t number(std::istream &in) { return std::stoull(token(in)); }

inline void expect(std::istream &in, const std::string &word) {
    if (token(in) != word)
        fail("script: expected " + word);
}

template <class Design>
Stream<typename Design::Port> stream(Design &design, const std::string &name, bool input) {
    Stream<typename Design::Port> s;
    s.name = name;
    s.valid = design.port(name + "__valid", input);
    s.ready = design.port(name + "__ready", !input);
    s.payload = design.port(name + "__payload", input);
    return s;
}

// Read a script from stdin, play it on `design`, print the report; 0 (done or hang) or exits 2.
template <class Design> int play(Design &design) {
    using P = typename Design::Port;
    std::istream &in = std::cin;
    expect(in, "aesdse-script");
    if (number(in) != 1)
        fail("unknown script version");
    expect(in, "max_cycles");
    size_t max_cycles = number(in);

    expect(in, "clocks");
    std::vector<Clock<P>> clocks(number(in));
    unsigned ticks = 2;     // sub-steps of a sync period: twice the largest multiplier
    for (Clock<P> &clock : clocks) {
        clock.port = design.port(token(in), true);
        clock.multiplier = number(in);
        if (clock.multiplier < 1 || clock.multiplier > 16)
            fail("clock multiplier out of range");
        ticks = std::max(ticks, 2 * clock.multiplier);
    }
    for (const Clock<P> &clock : clocks)
        if (ticks % (2 * clock.multiplier))
            fail("clock multipliers must divide the largest one");
    expect(in, "zeros");
    for (size_t n = number(in); n-- > 0;) {
        // A domain without a reset has no reset port.
        if (P *reset = design.find(token(in)))
            set_bit(reset, false);
    }

    expect(in, "inputs");
    std::vector<Stream<P>> inputs;
    for (size_t n = number(in); n-- > 0;)
        inputs.push_back(stream(design, token(in), true));
    expect(in, "outputs");
    std::vector<Output<P>> outputs;
    for (size_t n = number(in); n-- > 0;) {
        Output<P> o;
        static_cast<Stream<P> &>(o) = stream(design, token(in), false);
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

    for (const Stream<P> &s : inputs)
        set_bit(s.valid, false);
    for (const Output<P> &o : outputs)
        set_bit(o.ready, false);
    for (const Clock<P> &clock : clocks)
        set_bit(clock.port, false);
    design.step();

    size_t next_item = 0, last_input_edge = 0, pending_outputs = 0;
    for (const Output<P> &o : outputs)
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
            Output<P> &o = outputs[n];
            ready[n] = o.received < o.expected && o.pattern[edge % o.pattern.size()] == '1';
            set_bit(o.ready, ready[n]);
        }
        // The faster clocks' edges inside the period (none before the first edge, as in
        // amaranth.sim where every clock's first rising edge is the sync clock's), then the
        // sampling point. A clock of multiplier m is high for the first half of each of its
        // periods of ticks / m sub-steps, the sync edge being sub-step 0.
        for (unsigned t = 1; t < ticks; t++) {
            for (const Clock<P> &clock : clocks) {
                unsigned period = ticks / clock.multiplier;
                set_bit(clock.port, edge > 0 && t % period < period / 2);
            }
            deltas += design.step();
        }
        bool input_fired = driving && inputs[items[next_item].input].ready->curr[0];
        std::vector<std::string> fired(outputs.size());
        for (size_t n = 0; n < outputs.size(); n++)
            if (ready[n] && outputs[n].valid->curr[0])
                fired[n] = format_hex(outputs[n].payload->curr, chunks(outputs[n].payload));
        // The edge of every clock.
        for (const Clock<P> &clock : clocks)
            set_bit(clock.port, true);
        deltas += design.step();
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
    return 0;
}

} // namespace aesdse
