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
// The protocol and the loop are in stream_player.h, shared with the Verilator harness.

#include <string>

#include <cxxrtl/capi/cxxrtl_capi.h>

#include "stream_player.h"

extern "C" cxxrtl_toplevel cxxrtl_design_create();

namespace {

// The design's ports through the CXXRTL C API.
struct CxxrtlDesign {
    using Port = cxxrtl_object;
    cxxrtl_handle handle;

    Port *find(const std::string &name) { return cxxrtl_get(handle, name.c_str()); }

    Port *port(const std::string &name, bool input) {
        Port *object = find(name);
        if (!object)
            aesdse::fail("the design has no port " + name);
        if (input && !object->next)
            aesdse::fail("port " + name + " cannot be driven");
        return object;
    }

    size_t step() { return cxxrtl_step(handle); }
};

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    CxxrtlDesign design{cxxrtl_create(cxxrtl_design_create())};
    int status = aesdse::play(design);
    cxxrtl_destroy(design.handle);
    return status;
}
