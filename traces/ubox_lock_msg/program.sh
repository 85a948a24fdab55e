# UBox: the UCLK fixed counter, messages received, and locked sequences.
wrmsr 0xc00 0x80000000
wrmsr 0xc08 0x00400000                    # U_MSR_PMON_UCLK_FIXED_CTL: en
wrmsr 0xc10 0x00400642                    # ctr0: EVENT_MSG.MSI_RCVD|IPI_RCVD
wrmsr 0xc11 0x01440044                    # ctr1: LOCK_CYCLES, edge, thresh 1: lock sequences
wrmsr 0xc00 0x20000000
