#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "launch/process.hpp"

using namespace phasecheck;

TEST_CASE("launch: exit code, captured output, stdin from a file, no shell unless asked") {
  const launch::ScratchDirectory scratch;
  std::ofstream(scratch.file("in.txt")) << "from the file\n";
  const launch::Finished f =
      launch::run({.argv = {"cat"}, .stdin_file = scratch.file("in.txt"), .timeout = 30});
  REQUIRE(f.status);
  CHECK(*f.status == 0);
  CHECK(f.out == "from the file\n");
  // Without a shell, a ';' is an argument like any other.
  const launch::Finished echo = launch::run({.argv = {"echo", "a;", "false"}, .timeout = 30});
  CHECK(echo.out == "a; false\n");
  const launch::Finished sh =
      launch::run({.argv = launch::shell_command("echo oops >&2; exit 3"), .timeout = 30});
  CHECK(sh.status == 3);
  CHECK(sh.describe(30) == "exit 3");
  CHECK(sh.err_tail() == "oops");
}

TEST_CASE("launch: the whole process group is killed at the deadline") {
  const launch::ScratchDirectory scratch;
  const std::string marker = scratch.file("grandchild-survived");
  // A grandchild that would write the marker after 2 s: killed with its group at 0.3 s.
  const launch::Finished f = launch::run(
      {.argv = launch::shell_command("(sleep 2; touch '" + marker + "') & sleep 60"),
       .timeout = 0.3});
  CHECK(f.timed_out);
  CHECK_FALSE(f.status);
  CHECK(f.describe(0.3) == "timed out after 0.3 s");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("launch: stdout to a new file only, a missing program is an InputError") {
  const launch::ScratchDirectory scratch;
  const std::string out = scratch.file("out.txt");
  const launch::Finished f = launch::run({.argv = {"echo", "hi"}, .stdout_file = out, .timeout = 30});
  CHECK(f.status == 0);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  CHECK(line == "hi");
  // The file exists now: a second run may not write through or over it.
  CHECK_THROWS_WITH_AS(
      launch::run({.argv = {"echo", "again"}, .stdout_file = out, .timeout = 30}),
      doctest::Contains("File exists"), InputError);
  CHECK_THROWS_AS(launch::run({.argv = {"/no/such/program"}, .timeout = 30}), InputError);
  CHECK_THROWS_AS(launch::run({.argv = {"true"}, .timeout = -1}), InputError);
}
