// Behavioural simulation model of the Lattice ECP5 DP16KD block RAM, for aesdse's netlist stage
// (aesdse/verify/netlist.py): Yosys's own ECP5 cell library has only a black box for DP16KD.
// Read after +/ecp5/cells_sim.v with `read_verilog -overwrite`, it replaces that black box; the
// ports and parameters are the black box's, so every netlist Yosys writes elaborates with it.
//
// What it models (Lattice FPGA-TN-02204, "ECP5 and ECP5-5G Memory Usage Guide", true dual-port
// RAM; the layout Yosys's +/lattice/brams_map_16kd.v writes and archs/prims/ecp5.py reads):
// - 1024 words of 18 bits; DATA_WIDTH 18 reads and writes a word at AD13..AD4, with the byte
//   enables AD0 (DI8..DI0) and AD1 (DI17..DI9) on writes; DATA_WIDTH 9 a 9-bit word at
//   AD13..AD3, the lower half of the 18-bit word at AD13..AD4 when AD3 is 0, on DI8..DI0 and
//   DO8..DO0 (DO17..DO9 read 0).
// - INITVAL_00 .. INITVAL_3F: 16 groups of 20 bits each, the 18-bit word in the low 18 bits;
//   INITVAL_n holds words 16n .. 16n + 15.
// - Synchronous reads on CLKA / CLKB (inverted with CLKxMUX = "INV") when CEx is high and
//   CSx2..CSx0 equal CSDECODE_x; REGMODE_x = "OUTREG" adds the output register, loaded when
//   OCEx is high: data two edges after the address. Writes when WEx is also high; the port's
//   read data then follows WRITEMODE_x: NORMAL keeps it, WRITETHROUGH shows the new data,
//   READBEFOREWRITE the old (Yosys's brams_16kd.txt: no_change, new, old).
// - RSTx clears the read data and the output register, at the clock edge (RESETMODE SYNC,
//   whatever CEx) or at once (ASYNC). The outputs are 0 after configuration (GSR); GSR itself
//   is not modelled.
// - Two ports writing the same word at the same edge, and a port reading a word the other
//   writes, are undefined on the device; here the simulator's order decides.
// Any other parameter value (other widths, INIT_DATA = "DYNAMIC", input multiplexers other than
// the pins themselves) stops the elaboration with $error: aesdse reports such a netlist as not
// simulated instead of simulating it wrong.

module DP16KD(
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input CEA, OCEA, CLKA, WEA, RSTA,
  input CSA2, CSA1, CSA0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,

  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input CEB, OCEB, CLKB, WEB, RSTB,
  input CSB2, CSB1, CSB0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
	parameter DATA_WIDTH_A = 18;
	parameter DATA_WIDTH_B = 18;
	parameter REGMODE_A = "NOREG";
	parameter REGMODE_B = "NOREG";
	parameter RESETMODE = "SYNC";
	parameter ASYNC_RESET_RELEASE = "SYNC";
	parameter CSDECODE_A = "0b000";
	parameter CSDECODE_B = "0b000";
	parameter WRITEMODE_A = "NORMAL";
	parameter WRITEMODE_B = "NORMAL";
	parameter DIA17MUX = "DIA17";
	parameter DIA16MUX = "DIA16";
	parameter DIA15MUX = "DIA15";
	parameter DIA14MUX = "DIA14";
	parameter DIA13MUX = "DIA13";
	parameter DIA12MUX = "DIA12";
	parameter DIA11MUX = "DIA11";
	parameter DIA10MUX = "DIA10";
	parameter DIA9MUX = "DIA9";
	parameter DIA8MUX = "DIA8";
	parameter DIA7MUX = "DIA7";
	parameter DIA6MUX = "DIA6";
	parameter DIA5MUX = "DIA5";
	parameter DIA4MUX = "DIA4";
	parameter DIA3MUX = "DIA3";
	parameter DIA2MUX = "DIA2";
	parameter DIA1MUX = "DIA1";
	parameter DIA0MUX = "DIA0";
	parameter ADA13MUX = "ADA13";
	parameter ADA12MUX = "ADA12";
	parameter ADA11MUX = "ADA11";
	parameter ADA10MUX = "ADA10";
	parameter ADA9MUX = "ADA9";
	parameter ADA8MUX = "ADA8";
	parameter ADA7MUX = "ADA7";
	parameter ADA6MUX = "ADA6";
	parameter ADA5MUX = "ADA5";
	parameter ADA4MUX = "ADA4";
	parameter ADA3MUX = "ADA3";
	parameter ADA2MUX = "ADA2";
	parameter ADA1MUX = "ADA1";
	parameter ADA0MUX = "ADA0";
	parameter CEAMUX = "CEA";
	parameter OCEAMUX = "OCEA";
	parameter CLKAMUX = "CLKA";
	parameter WEAMUX = "WEA";
	parameter RSTAMUX = "RSTA";
	parameter CSA2MUX = "CSA2";
	parameter CSA1MUX = "CSA1";
	parameter CSA0MUX = "CSA0";
	parameter DOA17MUX = "DOA17";
	parameter DOA16MUX = "DOA16";
	parameter DOA15MUX = "DOA15";
	parameter DOA14MUX = "DOA14";
	parameter DOA13MUX = "DOA13";
	parameter DOA12MUX = "DOA12";
	parameter DOA11MUX = "DOA11";
	parameter DOA10MUX = "DOA10";
	parameter DOA9MUX = "DOA9";
	parameter DOA8MUX = "DOA8";
	parameter DOA7MUX = "DOA7";
	parameter DOA6MUX = "DOA6";
	parameter DOA5MUX = "DOA5";
	parameter DOA4MUX = "DOA4";
	parameter DOA3MUX = "DOA3";
	parameter DOA2MUX = "DOA2";
	parameter DOA1MUX = "DOA1";
	parameter DOA0MUX = "DOA0";
	parameter DIB17MUX = "DIB17";
	parameter DIB16MUX = "DIB16";
	parameter DIB15MUX = "DIB15";
	parameter DIB14MUX = "DIB14";
	parameter DIB13MUX = "DIB13";
	parameter DIB12MUX = "DIB12";
	parameter DIB11MUX = "DIB11";
	parameter DIB10MUX = "DIB10";
	parameter DIB9MUX = "DIB9";
	parameter DIB8MUX = "DIB8";
	parameter DIB7MUX = "DIB7";
	parameter DIB6MUX = "DIB6";
	parameter DIB5MUX = "DIB5";
	parameter DIB4MUX = "DIB4";
	parameter DIB3MUX = "DIB3";
	parameter DIB2MUX = "DIB2";
	parameter DIB1MUX = "DIB1";
	parameter DIB0MUX = "DIB0";
	parameter ADB13MUX = "ADB13";
	parameter ADB12MUX = "ADB12";
	parameter ADB11MUX = "ADB11";
	parameter ADB10MUX = "ADB10";
	parameter ADB9MUX = "ADB9";
	parameter ADB8MUX = "ADB8";
	parameter ADB7MUX = "ADB7";
	parameter ADB6MUX = "ADB6";
	parameter ADB5MUX = "ADB5";
	parameter ADB4MUX = "ADB4";
	parameter ADB3MUX = "ADB3";
	parameter ADB2MUX = "ADB2";
	parameter ADB1MUX = "ADB1";
	parameter ADB0MUX = "ADB0";
	parameter CEBMUX = "CEB";
	parameter OCEBMUX = "OCEB";
	parameter CLKBMUX = "CLKB";
	parameter WEBMUX = "WEB";
	parameter RSTBMUX = "RSTB";
	parameter CSB2MUX = "CSB2";
	parameter CSB1MUX = "CSB1";
	parameter CSB0MUX = "CSB0";
	parameter DOB17MUX = "DOB17";
	parameter DOB16MUX = "DOB16";
	parameter DOB15MUX = "DOB15";
	parameter DOB14MUX = "DOB14";
	parameter DOB13MUX = "DOB13";
	parameter DOB12MUX = "DOB12";
	parameter DOB11MUX = "DOB11";
	parameter DOB10MUX = "DOB10";
	parameter DOB9MUX = "DOB9";
	parameter DOB8MUX = "DOB8";
	parameter DOB7MUX = "DOB7";
	parameter DOB6MUX = "DOB6";
	parameter DOB5MUX = "DOB5";
	parameter DOB4MUX = "DOB4";
	parameter DOB3MUX = "DOB3";
	parameter DOB2MUX = "DOB2";
	parameter DOB1MUX = "DOB1";
	parameter DOB0MUX = "DOB0";
	parameter WID = 0;
	parameter GSR = "ENABLED";
	parameter INITVAL_00 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_01 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_02 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_03 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_04 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_05 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_06 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_07 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_08 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_09 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0A = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0B = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0C = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0D = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0E = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_0F = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_10 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_11 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_12 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_13 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_14 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_15 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_16 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_17 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_18 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_19 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1A = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1B = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1C = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1D = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1E = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_1F = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_20 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_21 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_22 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_23 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_24 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_25 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_26 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_27 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_28 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_29 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2A = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2B = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2C = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2D = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2E = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_2F = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_30 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_31 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_32 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_33 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_34 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_35 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_36 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_37 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_38 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_39 = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3A = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3B = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3C = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3D = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3E = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INITVAL_3F = 320'h00000000000000000000000000000000000000000000000000000000000000000000000000000000;
	parameter INIT_DATA = "STATIC";

	// CSDECODE_A as a number; 8 for a value that is none of the eight.
	localparam integer CS_SELECT_A = CSDECODE_A == "0b000" ? 0 : CSDECODE_A == "0b001" ? 1 : CSDECODE_A == "0b010" ? 2 : CSDECODE_A == "0b011" ? 3 : CSDECODE_A == "0b100" ? 4 : CSDECODE_A == "0b101" ? 5 : CSDECODE_A == "0b110" ? 6 : CSDECODE_A == "0b111" ? 7 : 8;
	// CSDECODE_B as a number; 8 for a value that is none of the eight.
	localparam integer CS_SELECT_B = CSDECODE_B == "0b000" ? 0 : CSDECODE_B == "0b001" ? 1 : CSDECODE_B == "0b010" ? 2 : CSDECODE_B == "0b011" ? 3 : CSDECODE_B == "0b100" ? 4 : CSDECODE_B == "0b101" ? 5 : CSDECODE_B == "0b110" ? 6 : CSDECODE_B == "0b111" ? 7 : 8;

	// Parameters outside what the model implements stop the elaboration: a netlist using them
	// is reported as not simulated rather than simulated wrong.
	generate
		if (DATA_WIDTH_A != 9 && DATA_WIDTH_A != 18)
			$error("DP16KD model: DATA_WIDTH_A other than 9 or 18 is not modelled");
		if (REGMODE_A != "NOREG" && REGMODE_A != "OUTREG")
			$error("DP16KD model: REGMODE_A other than NOREG or OUTREG is not modelled");
		if (WRITEMODE_A != "NORMAL" && WRITEMODE_A != "WRITETHROUGH" && WRITEMODE_A != "READBEFOREWRITE")
			$error("DP16KD model: WRITEMODE_A other than NORMAL, WRITETHROUGH or READBEFOREWRITE is not modelled");
		if (CS_SELECT_A > 7)
			$error("DP16KD model: CSDECODE_A other than 0b000 .. 0b111 is not modelled");
		if (CLKAMUX != "CLKA" && CLKAMUX != "INV")
			$error("DP16KD model: CLKAMUX other than CLKA or INV is not modelled");
		if (DATA_WIDTH_B != 9 && DATA_WIDTH_B != 18)
			$error("DP16KD model: DATA_WIDTH_B other than 9 or 18 is not modelled");
		if (REGMODE_B != "NOREG" && REGMODE_B != "OUTREG")
			$error("DP16KD model: REGMODE_B other than NOREG or OUTREG is not modelled");
		if (WRITEMODE_B != "NORMAL" && WRITEMODE_B != "WRITETHROUGH" && WRITEMODE_B != "READBEFOREWRITE")
			$error("DP16KD model: WRITEMODE_B other than NORMAL, WRITETHROUGH or READBEFOREWRITE is not modelled");
		if (CS_SELECT_B > 7)
			$error("DP16KD model: CSDECODE_B other than 0b000 .. 0b111 is not modelled");
		if (CLKBMUX != "CLKB" && CLKBMUX != "INV")
			$error("DP16KD model: CLKBMUX other than CLKB or INV is not modelled");
		if (RESETMODE != "SYNC" && RESETMODE != "ASYNC")
			$error("DP16KD model: RESETMODE other than SYNC or ASYNC is not modelled");
		if (ASYNC_RESET_RELEASE != "SYNC" && ASYNC_RESET_RELEASE != "ASYNC")
			$error("DP16KD model: ASYNC_RESET_RELEASE other than SYNC or ASYNC is not modelled");
		if (INIT_DATA != "STATIC")
			$error("DP16KD model: INIT_DATA other than STATIC is not modelled");
		if (GSR != "ENABLED" && GSR != "DISABLED" && GSR != "AUTO")
			$error("DP16KD model: GSR other than ENABLED, DISABLED or AUTO is not modelled");
		if (DIA17MUX != "DIA17" ||
		    DIA16MUX != "DIA16" ||
		    DIA15MUX != "DIA15" ||
		    DIA14MUX != "DIA14" ||
		    DIA13MUX != "DIA13" ||
		    DIA12MUX != "DIA12" ||
		    DIA11MUX != "DIA11" ||
		    DIA10MUX != "DIA10" ||
		    DIA9MUX != "DIA9" ||
		    DIA8MUX != "DIA8" ||
		    DIA7MUX != "DIA7" ||
		    DIA6MUX != "DIA6" ||
		    DIA5MUX != "DIA5" ||
		    DIA4MUX != "DIA4" ||
		    DIA3MUX != "DIA3" ||
		    DIA2MUX != "DIA2" ||
		    DIA1MUX != "DIA1" ||
		    DIA0MUX != "DIA0" ||
		    ADA13MUX != "ADA13" ||
		    ADA12MUX != "ADA12" ||
		    ADA11MUX != "ADA11" ||
		    ADA10MUX != "ADA10" ||
		    ADA9MUX != "ADA9" ||
		    ADA8MUX != "ADA8" ||
		    ADA7MUX != "ADA7" ||
		    ADA6MUX != "ADA6" ||
		    ADA5MUX != "ADA5" ||
		    ADA4MUX != "ADA4" ||
		    ADA3MUX != "ADA3" ||
		    ADA2MUX != "ADA2" ||
		    ADA1MUX != "ADA1" ||
		    ADA0MUX != "ADA0" ||
		    CEAMUX != "CEA" ||
		    OCEAMUX != "OCEA" ||
		    WEAMUX != "WEA" ||
		    RSTAMUX != "RSTA" ||
		    CSA2MUX != "CSA2" ||
		    CSA1MUX != "CSA1" ||
		    CSA0MUX != "CSA0" ||
		    DOA17MUX != "DOA17" ||
		    DOA16MUX != "DOA16" ||
		    DOA15MUX != "DOA15" ||
		    DOA14MUX != "DOA14" ||
		    DOA13MUX != "DOA13" ||
		    DOA12MUX != "DOA12" ||
		    DOA11MUX != "DOA11" ||
		    DOA10MUX != "DOA10" ||
		    DOA9MUX != "DOA9" ||
		    DOA8MUX != "DOA8" ||
		    DOA7MUX != "DOA7" ||
		    DOA6MUX != "DOA6" ||
		    DOA5MUX != "DOA5" ||
		    DOA4MUX != "DOA4" ||
		    DOA3MUX != "DOA3" ||
		    DOA2MUX != "DOA2" ||
		    DOA1MUX != "DOA1" ||
		    DOA0MUX != "DOA0" ||
		    DIB17MUX != "DIB17" ||
		    DIB16MUX != "DIB16" ||
		    DIB15MUX != "DIB15" ||
		    DIB14MUX != "DIB14" ||
		    DIB13MUX != "DIB13" ||
		    DIB12MUX != "DIB12" ||
		    DIB11MUX != "DIB11" ||
		    DIB10MUX != "DIB10" ||
		    DIB9MUX != "DIB9" ||
		    DIB8MUX != "DIB8" ||
		    DIB7MUX != "DIB7" ||
		    DIB6MUX != "DIB6" ||
		    DIB5MUX != "DIB5" ||
		    DIB4MUX != "DIB4" ||
		    DIB3MUX != "DIB3" ||
		    DIB2MUX != "DIB2" ||
		    DIB1MUX != "DIB1" ||
		    DIB0MUX != "DIB0" ||
		    ADB13MUX != "ADB13" ||
		    ADB12MUX != "ADB12" ||
		    ADB11MUX != "ADB11" ||
		    ADB10MUX != "ADB10" ||
		    ADB9MUX != "ADB9" ||
		    ADB8MUX != "ADB8" ||
		    ADB7MUX != "ADB7" ||
		    ADB6MUX != "ADB6" ||
		    ADB5MUX != "ADB5" ||
		    ADB4MUX != "ADB4" ||
		    ADB3MUX != "ADB3" ||
		    ADB2MUX != "ADB2" ||
		    ADB1MUX != "ADB1" ||
		    ADB0MUX != "ADB0" ||
		    CEBMUX != "CEB" ||
		    OCEBMUX != "OCEB" ||
		    WEBMUX != "WEB" ||
		    RSTBMUX != "RSTB" ||
		    CSB2MUX != "CSB2" ||
		    CSB1MUX != "CSB1" ||
		    CSB0MUX != "CSB0" ||
		    DOB17MUX != "DOB17" ||
		    DOB16MUX != "DOB16" ||
		    DOB15MUX != "DOB15" ||
		    DOB14MUX != "DOB14" ||
		    DOB13MUX != "DOB13" ||
		    DOB12MUX != "DOB12" ||
		    DOB11MUX != "DOB11" ||
		    DOB10MUX != "DOB10" ||
		    DOB9MUX != "DOB9" ||
		    DOB8MUX != "DOB8" ||
		    DOB7MUX != "DOB7" ||
		    DOB6MUX != "DOB6" ||
		    DOB5MUX != "DOB5" ||
		    DOB4MUX != "DOB4" ||
		    DOB3MUX != "DOB3" ||
		    DOB2MUX != "DOB2" ||
		    DOB1MUX != "DOB1" ||
		    DOB0MUX != "DOB0")
			$error("DP16KD model: an input multiplexer (ADA0MUX .. CSB2MUX) other than its own pin is not modelled");
	endgenerate

	// The array, 1024 words of 18 bits; a 9-bit word is one half, the lower at the even address.
	reg [17:0] mem [0:1023];
	integer i;
	initial begin
		for (i = 0; i < 16; i = i + 1) begin
			mem[0 + i] = INITVAL_00[20 * i +: 18];
			mem[16 + i] = INITVAL_01[20 * i +: 18];
			mem[32 + i] = INITVAL_02[20 * i +: 18];
			mem[48 + i] = INITVAL_03[20 * i +: 18];
			mem[64 + i] = INITVAL_04[20 * i +: 18];
			mem[80 + i] = INITVAL_05[20 * i +: 18];
			mem[96 + i] = INITVAL_06[20 * i +: 18];
			mem[112 + i] = INITVAL_07[20 * i +: 18];
			mem[128 + i] = INITVAL_08[20 * i +: 18];
			mem[144 + i] = INITVAL_09[20 * i +: 18];
			mem[160 + i] = INITVAL_0A[20 * i +: 18];
			mem[176 + i] = INITVAL_0B[20 * i +: 18];
			mem[192 + i] = INITVAL_0C[20 * i +: 18];
			mem[208 + i] = INITVAL_0D[20 * i +: 18];
			mem[224 + i] = INITVAL_0E[20 * i +: 18];
			mem[240 + i] = INITVAL_0F[20 * i +: 18];
			mem[256 + i] = INITVAL_10[20 * i +: 18];
			mem[272 + i] = INITVAL_11[20 * i +: 18];
			mem[288 + i] = INITVAL_12[20 * i +: 18];
			mem[304 + i] = INITVAL_13[20 * i +: 18];
			mem[320 + i] = INITVAL_14[20 * i +: 18];
			mem[336 + i] = INITVAL_15[20 * i +: 18];
			mem[352 + i] = INITVAL_16[20 * i +: 18];
			mem[368 + i] = INITVAL_17[20 * i +: 18];
			mem[384 + i] = INITVAL_18[20 * i +: 18];
			mem[400 + i] = INITVAL_19[20 * i +: 18];
			mem[416 + i] = INITVAL_1A[20 * i +: 18];
			mem[432 + i] = INITVAL_1B[20 * i +: 18];
			mem[448 + i] = INITVAL_1C[20 * i +: 18];
			mem[464 + i] = INITVAL_1D[20 * i +: 18];
			mem[480 + i] = INITVAL_1E[20 * i +: 18];
			mem[496 + i] = INITVAL_1F[20 * i +: 18];
			mem[512 + i] = INITVAL_20[20 * i +: 18];
			mem[528 + i] = INITVAL_21[20 * i +: 18];
			mem[544 + i] = INITVAL_22[20 * i +: 18];
			mem[560 + i] = INITVAL_23[20 * i +: 18];
			mem[576 + i] = INITVAL_24[20 * i +: 18];
			mem[592 + i] = INITVAL_25[20 * i +: 18];
			mem[608 + i] = INITVAL_26[20 * i +: 18];
			mem[624 + i] = INITVAL_27[20 * i +: 18];
			mem[640 + i] = INITVAL_28[20 * i +: 18];
			mem[656 + i] = INITVAL_29[20 * i +: 18];
			mem[672 + i] = INITVAL_2A[20 * i +: 18];
			mem[688 + i] = INITVAL_2B[20 * i +: 18];
			mem[704 + i] = INITVAL_2C[20 * i +: 18];
			mem[720 + i] = INITVAL_2D[20 * i +: 18];
			mem[736 + i] = INITVAL_2E[20 * i +: 18];
			mem[752 + i] = INITVAL_2F[20 * i +: 18];
			mem[768 + i] = INITVAL_30[20 * i +: 18];
			mem[784 + i] = INITVAL_31[20 * i +: 18];
			mem[800 + i] = INITVAL_32[20 * i +: 18];
			mem[816 + i] = INITVAL_33[20 * i +: 18];
			mem[832 + i] = INITVAL_34[20 * i +: 18];
			mem[848 + i] = INITVAL_35[20 * i +: 18];
			mem[864 + i] = INITVAL_36[20 * i +: 18];
			mem[880 + i] = INITVAL_37[20 * i +: 18];
			mem[896 + i] = INITVAL_38[20 * i +: 18];
			mem[912 + i] = INITVAL_39[20 * i +: 18];
			mem[928 + i] = INITVAL_3A[20 * i +: 18];
			mem[944 + i] = INITVAL_3B[20 * i +: 18];
			mem[960 + i] = INITVAL_3C[20 * i +: 18];
			mem[976 + i] = INITVAL_3D[20 * i +: 18];
			mem[992 + i] = INITVAL_3E[20 * i +: 18];
			mem[1008 + i] = INITVAL_3F[20 * i +: 18];
		end
	end

	// Port A (the same logic as the other port).
	wire [13:0] ad_a = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
	wire [17:0] di_a = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
	wire clk_a = CLKAMUX == "INV" ? ~CLKA : CLKA;
	wire enabled_a = CEA && {CSA2, CSA1, CSA0} == CS_SELECT_A[2:0];
	wire write_a = enabled_a && WEA;
	wire [9:0] unit_a = ad_a[13:4];
	wire [17:0] word_a = mem[unit_a];
	// The halves a write changes: the byte enables at width 18, the half AD3 selects at 9.
	wire [1:0] halves_a = DATA_WIDTH_A == 18 ? ad_a[1:0] : {ad_a[3], !ad_a[3]};
	wire [17:0] written_a = DATA_WIDTH_A == 18 ? di_a : {di_a[8:0], di_a[8:0]};
	wire [17:0] merged_a = {halves_a[1] ? written_a[17:9] : word_a[17:9],
	                        halves_a[0] ? written_a[8:0] : word_a[8:0]};
	wire [17:0] read_a = DATA_WIDTH_A == 18 ? word_a :
	                     {9'b0, ad_a[3] ? word_a[17:9] : word_a[8:0]};
	wire [17:0] through_a = DATA_WIDTH_A == 18 ? merged_a :
	                        {9'b0, ad_a[3] ? merged_a[17:9] : merged_a[8:0]};
	reg [17:0] latch_a = 18'b0;
	reg [17:0] output_a = 18'b0;
	wire [17:0] next_a = !write_a ? read_a :
	                     WRITEMODE_A == "WRITETHROUGH" ? through_a :
	                     WRITEMODE_A == "READBEFOREWRITE" ? read_a : latch_a;
	always @(posedge clk_a) begin
		if (write_a && halves_a[0])
			mem[unit_a][8:0] <= written_a[8:0];
		if (write_a && halves_a[1])
			mem[unit_a][17:9] <= written_a[17:9];
	end
	generate
		if (RESETMODE == "ASYNC") begin
			always @(posedge clk_a or posedge RSTA)
				if (RSTA)
					latch_a <= 18'b0;
				else if (enabled_a)
					latch_a <= next_a;
			always @(posedge clk_a or posedge RSTA)
				if (RSTA)
					output_a <= 18'b0;
				else if (OCEA)
					output_a <= latch_a;
		end else begin
			always @(posedge clk_a)
				if (RSTA)
					latch_a <= 18'b0;
				else if (enabled_a)
					latch_a <= next_a;
			always @(posedge clk_a)
				if (RSTA)
					output_a <= 18'b0;
				else if (OCEA)
					output_a <= latch_a;
		end
	endgenerate
	wire [17:0] do_a = REGMODE_A == "OUTREG" ? output_a : latch_a;
	assign DOA0 = do_a[0];
	assign DOA1 = do_a[1];
	assign DOA2 = do_a[2];
	assign DOA3 = do_a[3];
	assign DOA4 = do_a[4];
	assign DOA5 = do_a[5];
	assign DOA6 = do_a[6];
	assign DOA7 = do_a[7];
	assign DOA8 = do_a[8];
	assign DOA9 = do_a[9];
	assign DOA10 = do_a[10];
	assign DOA11 = do_a[11];
	assign DOA12 = do_a[12];
	assign DOA13 = do_a[13];
	assign DOA14 = do_a[14];
	assign DOA15 = do_a[15];
	assign DOA16 = do_a[16];
	assign DOA17 = do_a[17];

	// Port B (the same logic as the other port).
	wire [13:0] ad_b = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
	wire [17:0] di_b = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
	wire clk_b = CLKBMUX == "INV" ? ~CLKB : CLKB;
	wire enabled_b = CEB && {CSB2, CSB1, CSB0} == CS_SELECT_B[2:0];
	wire write_b = enabled_b && WEB;
	wire [9:0] unit_b = ad_b[13:4];
	wire [17:0] word_b = mem[unit_b];
	// The halves a write changes: the byte enables at width 18, the half AD3 selects at 9.
	wire [1:0] halves_b = DATA_WIDTH_B == 18 ? ad_b[1:0] : {ad_b[3], !ad_b[3]};
	wire [17:0] written_b = DATA_WIDTH_B == 18 ? di_b : {di_b[8:0], di_b[8:0]};
	wire [17:0] merged_b = {halves_b[1] ? written_b[17:9] : word_b[17:9],
	                        halves_b[0] ? written_b[8:0] : word_b[8:0]};
	wire [17:0] read_b = DATA_WIDTH_B == 18 ? word_b :
	                     {9'b0, ad_b[3] ? word_b[17:9] : word_b[8:0]};
	wire [17:0] through_b = DATA_WIDTH_B == 18 ? merged_b :
	                        {9'b0, ad_b[3] ? merged_b[17:9] : merged_b[8:0]};
	reg [17:0] latch_b = 18'b0;
	reg [17:0] output_b = 18'b0;
	wire [17:0] next_b = !write_b ? read_b :
	                     WRITEMODE_B == "WRITETHROUGH" ? through_b :
	                     WRITEMODE_B == "READBEFOREWRITE" ? read_b : latch_b;
	always @(posedge clk_b) begin
		if (write_b && halves_b[0])
			mem[unit_b][8:0] <= written_b[8:0];
		if (write_b && halves_b[1])
			mem[unit_b][17:9] <= written_b[17:9];
	end
	generate
		if (RESETMODE == "ASYNC") begin
			always @(posedge clk_b or posedge RSTB)
				if (RSTB)
					latch_b <= 18'b0;
				else if (enabled_b)
					latch_b <= next_b;
			always @(posedge clk_b or posedge RSTB)
				if (RSTB)
					output_b <= 18'b0;
				else if (OCEB)
					output_b <= latch_b;
		end else begin
			always @(posedge clk_b)
				if (RSTB)
					latch_b <= 18'b0;
				else if (enabled_b)
					latch_b <= next_b;
			always @(posedge clk_b)
				if (RSTB)
					output_b <= 18'b0;
				else if (OCEB)
					output_b <= latch_b;
		end
	endgenerate
	wire [17:0] do_b = REGMODE_B == "OUTREG" ? output_b : latch_b;
	assign DOB0 = do_b[0];
	assign DOB1 = do_b[1];
	assign DOB2 = do_b[2];
	assign DOB3 = do_b[3];
	assign DOB4 = do_b[4];
	assign DOB5 = do_b[5];
	assign DOB6 = do_b[6];
	assign DOB7 = do_b[7];
	assign DOB8 = do_b[8];
	assign DOB9 = do_b[9];
	assign DOB10 = do_b[10];
	assign DOB11 = do_b[11];
	assign DOB12 = do_b[12];
	assign DOB13 = do_b[13];
	assign DOB14 = do_b[14];
	assign DOB15 = do_b[15];
	assign DOB16 = do_b[16];
	assign DOB17 = do_b[17];
endmodule
