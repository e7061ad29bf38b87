// doctest's main, with one addition: a run in which no test case passes the filters fails.
// ctest runs each test case by name (doctest_discover_tests); a name that ctest cannot pass
// through whole (one with a ';', which CMake splits into two tests) selects nothing, and doctest
// alone would call that run a success: a test that never ran, shown as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

namespace {

bool nothing_ran = false;

struct NothingRan : doctest::IReporter {
  explicit NothingRan(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    nothing_ran = stats.numTestCasesPassingFilters == 0;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("nothing-ran", 1, NothingRan);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int code = context.run();
  if (context.shouldExit()) return code;  // --help, --list-test-cases, ...
  if (nothing_ran) {
    std::cerr << "no test case passes the filters: nothing ran (a test name with ';' is split "
                 "by CMake: use another separator)\n";
    return 1;
  }
  return code;
}
