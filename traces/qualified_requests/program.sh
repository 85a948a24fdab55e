# Caching agent 0: thread 2, lines in M or E, opcode DRd.
wrmsr 0xd14 0x180002      # C0_MSR_PMON_BOX_FILTER0: state M|E (bits 20, 19), tid 2
wrmsr 0xd1a 0x18200000    # C0_MSR_PMON_BOX_FILTER1: opc 0x182
wrmsr 0xd10 0x480135      # CTL0: TOR_INSERTS.OPCODE with tid_en
wrmsr 0xd11 0x400334      # CTL1: LLC_LOOKUP.DATA_READ
# Caching agent 1: requests to node 1.
wrmsr 0xd3a 0x2           # C1_MSR_PMON_BOX_FILTER1: node mask, node 1
wrmsr 0xd30 0x404835      # CTL0: TOR_INSERTS.NID_ALL
# Home agent 0 (D14:F1): the line 0x7f001040 and opcode 0x01.
setpci -s ff:0e.1 40.L=7f001040 44.L=00000000 48.L=00000001
setpci -s ff:0e.1 d8.L=00400320 dc.L=00400220   # CTL0: ADDR_OPC_MATCH.FILT, CTL1: .OPC
