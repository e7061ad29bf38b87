// core/escape.hpp shell_word(): one word of a replay command; a POSIX shell reads it back as
// exactly the text it was made from.

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "core/escape.hpp"
#include "launch/process.hpp"

using namespace phasecheck;

namespace {

/// What /bin/sh makes of `word` as printf's argument (through launch/: a process group of its
/// own and a deadline, as every other program phasecheck starts).
std::string read_back(const std::string& word) {
  launch::Command command;
  command.argv = launch::shell_command("printf '%s' " + word);
  command.timeout = 10;
  const launch::Finished done = launch::run(command);
  CHECK(done.status == std::optional<int>(0));
  return done.out;
}

}  // namespace

TEST_CASE("shell_word: plain words as they are, everything else single-quoted") {
  CHECK(shell_word("phasecheck") == "phasecheck");
  CHECK(shell_word("--ranks=2..9,x@y%+/a:b_c-d") == "--ranks=2..9,x@y%+/a:b_c-d");
  CHECK(shell_word("") == "''");
  CHECK(shell_word("a b") == "'a b'");
  CHECK(shell_word("it's") == "'it'\\''s'");
  CHECK(shell_word("'") == "''\\'''");
  CHECK(shell_word("$(rm -rf ~)") == "'$(rm -rf ~)'");
}

TEST_CASE("shell_word: the shell reads each word back as the text it was made from") {
  for (const std::string& text :
       {std::string("plain"), std::string(""), std::string("it's"), std::string("''"),
        std::string("a b\tc\nd"), std::string("$HOME `id` $(id) \\ \" ; | & * ? [x] ~ # !"),
        std::string("-n"), std::string("caf\xc3\xa9 \x1b[31m")})
    CHECK(read_back(shell_word(text)) == text);
}
