// Test driver for the SystemC tests: SystemC needs sc_main; gtest runs inside.
#include <gtest/gtest.h>

#include <systemc>

namespace {
void report_to_gtest(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
    if (r.get_severity() >= sc_core::SC_WARNING)
        ADD_FAILURE() << "SystemC " << (r.get_severity() == sc_core::SC_WARNING ? "warning" : "error")
                      << ": " << r.get_msg_type() << ": " << r.get_msg();
    if (r.get_severity() >= sc_core::SC_ERROR)
        sc_core::sc_report_handler::default_handler(r, actions & ~sc_core::SC_DISPLAY);
}
}  // namespace

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(report_to_gtest);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
