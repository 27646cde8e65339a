// Minimal Verilator driver of bench/verify_speed.py: plays a script in the text protocol of
// aesdse/verify/cxxrtl_harness.cc (same cycle protocol, same report) on a Verilated model of a
// plain block core, so aesdse.verify.cxxrtl.play_compiled reads its report.
//
// Covers only what the benchmark needs: one clock (the sync one; `clocks` and `zeros` are
// skipped, rst held low), the input streams key (index 0) and i (index 1), the output stream o,
// payloads up to 512 bits. Port names are compiled in (Verilator escapes `__` as `___05F`),
// where the CXXRTL harness finds any stream by name at run time.
#include <cstdio>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>
#include "Vtop.h"
#include "verilated.h"

static std::vector<uint32_t> parse_hex(const std::string &t) {
    std::vector<uint32_t> v(16, 0); size_t bit = 0;
    for (size_t n = t.size(); n-- > 0; bit += 4) {
        char c = t[n]; uint32_t d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (bit / 32 < v.size()) v[bit / 32] |= d << (bit % 32);
    }
    return v;
}
template <size_t N> static void setv(VlWide<N> &p, const std::vector<uint32_t> &v) { for (size_t n = 0; n < N; n++) p[n] = v[n]; }
static void setv(QData &p, const std::vector<uint32_t> &v) { p = (QData)v[0] | ((QData)v[1] << 32); }
static void setv(IData &p, const std::vector<uint32_t> &v) { p = v[0]; }
static void setv(SData &p, const std::vector<uint32_t> &v) { p = v[0]; }
static void setv(CData &p, const std::vector<uint32_t> &v) { p = v[0]; }
template <size_t N> static std::string hexv(const VlWide<N> &p) { std::string s; char b[9]; for (size_t n = N; n-- > 0;) { snprintf(b, 9, "%08x", p[n]); s += b; } return s; }
static std::string hexv(QData p) { char b[20]; snprintf(b, 20, "%016llx", (unsigned long long)p); return b; }
static std::string hexv(IData p) { char b[20]; snprintf(b, 20, "%08x", p); return b; }
static std::string hexv(CData p) { char b[20]; snprintf(b, 20, "%02x", p); return b; }

struct Item { size_t input, gap; std::vector<uint32_t> payload; };

int main(int argc, char **argv) {
    std::ios::sync_with_stdio(false);
    VerilatedContext ctx; ctx.commandArgs(argc, argv);
    Vtop top(&ctx);
    std::string w; size_t max_cycles, n, expected = 0; std::string pattern;
    std::cin >> w >> w >> w >> max_cycles >> w >> n;          // aesdse-script 1 max_cycles N clocks K
    for (size_t k = 0; k < n; k++) std::cin >> w >> w;
    std::cin >> w >> n; for (size_t k = 0; k < n; k++) std::cin >> w;   // zeros
    std::cin >> w >> n; for (size_t k = 0; k < n; k++) std::cin >> w;   // inputs (key, i)
    std::cin >> w >> n; std::cin >> w >> expected >> pattern;          // outputs (o)
    std::cin >> w >> n; std::vector<Item> items(n);
    for (Item &it : items) { std::string h; std::cin >> it.input >> it.gap >> h; it.payload = parse_hex(h); }
    top.rst = 0; top.clk = 0; top.key___05Fvalid = 0; top.i___05Fvalid = 0; top.o___05Fready = 0; top.eval();
    size_t next = 0, last = 0, received = 0, edge = 0; std::string report; char line[64];
    while (next < items.size() || received < expected) {
        if (edge >= max_cycles) break;
        bool driving = next < items.size() && edge >= last + items[next].gap;
        bool key = driving && items[next].input == 0, data = driving && items[next].input == 1;
        top.key___05Fvalid = key; top.i___05Fvalid = data;
        if (key) setv(top.key___05Fpayload, items[next].payload);
        if (data) setv(top.i___05Fpayload, items[next].payload);
        bool ready = received < expected && pattern[edge % pattern.size()] == '1';
        top.o___05Fready = ready;
        top.clk = 0; top.eval();
        bool in_fired = (key && top.key___05Fready) || (data && top.i___05Fready);
        std::string fired; if (ready && top.o___05Fvalid) fired = hexv(top.o___05Fpayload);
        top.clk = 1; top.eval(); edge++;
        if (in_fired) { snprintf(line, sizeof line, "in %zu %zu\n", next, edge); report += line; next++; last = edge; }
        if (!fired.empty()) { snprintf(line, sizeof line, "out 0 %zu ", edge); report += line + fired + "\n"; received++; }
    }
    std::cout << report;
    if (next < items.size() || received < expected) std::cout << "hang " << edge << "\n";
    else std::cout << "done " << edge << " deltas 0\n";
    top.final();
    return 0;
}
