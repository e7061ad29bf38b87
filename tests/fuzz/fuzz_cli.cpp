// fuzz-cli: the command-line parser (cli/command_line.hpp) on arbitrary argument vectors. The input
// is split on NUL bytes into arguments after argv[0] = "phasecheck"; parse() validates them and
// runs nothing (run() is never called: it would read and write files). Any exit code is a fine
// answer; a crash, a sanitizer report or an exception escaping parse() is a finding (main() does
// not catch one).

#include <algorithm>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "finding.hpp"

namespace {

/// More arguments than any real command line needs; keeps each input fast.
constexpr std::size_t kMaxArguments = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = phasecheck::fuzz::as_text(data, size);
  std::vector<std::string> arguments = {"phasecheck"};
  for (std::size_t start = 0; start <= text.size() && arguments.size() <= kMaxArguments;) {
    const std::size_t end = std::min(text.find('\0', start), text.size());
    arguments.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (text.empty()) arguments.pop_back();  // no input: the bare program name
  std::vector<const char*> argv;
  for (const std::string& a : arguments) argv.push_back(a.c_str());
  argv.push_back(nullptr);

  std::ostringstream out, err;
  phasecheck::cli::CommandLine command_line;
  try {
    const auto code = command_line.parse(static_cast<int>(arguments.size()), argv.data(), out, err);
    if (code && *code != 0 && *code != 2)
      phasecheck::fuzz::finding("parse() returned an exit code other than 0 and 2");
  } catch (const std::exception& e) {
    phasecheck::fuzz::finding(std::string("parse() let an exception escape: ") + e.what());
  }
  return 0;
}
