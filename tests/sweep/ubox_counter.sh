# A command for `pmonsim sweep` (commands.json): Debian's msr-tools, run under
# `pmonsim exec`, program the UBox on the model it serves: the UCLK fixed
# counter and counter 0 on EVENT_MSG (MSIs and IPIs received), then read both
# back after 10 us of model time.
set -e
wrmsr 0xc00 0x80000000   # U_MSR_PMON_GLOBAL_CTL: freeze all
wrmsr 0xc08 0x00400000   # U_MSR_PMON_UCLK_FIXED_CTL: enable
wrmsr 0xc10 0x00400642   # U_MSR_PMON_CTL0: EVENT_MSG.MSI_RCVD|IPI_RCVD, enable
wrmsr 0xc00 0x20000000   # unfreeze
sleep 0.00001
rdmsr -p 0 -x 0xc09      # U_MSR_PMON_UCLK_FIXED_CTR
rdmsr -p 0 -d 0xc16      # U_MSR_PMON_CTR0
