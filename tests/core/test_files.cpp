#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"

using namespace phasecheck;
namespace fs = std::filesystem;

namespace {

/// A fresh directory, removed afterwards.
struct Directory {
  fs::path path;
  Directory() {
    std::string pattern = (fs::temp_directory_path() / "phasecheck-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()));
    path = pattern;
  }
  ~Directory() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// The limits in force for one test, restored after it.
struct LimitsFor {
  Limits saved = limits();
  explicit LimitsFor(Limits l) { set_limits(l); }
  ~LimitsFor() { set_limits(saved); }
};

}  // namespace

TEST_CASE("write_output: a new file and a replaced one are whole, the mode is kept") {
  const Directory d;
  write_output(d / "out.txt", [](std::ostream& os) { os << "first\n"; });
  CHECK(contents(d / "out.txt") == "first\n");
  chmod((d / "out.txt").c_str(), 0640);
  write_output(d / "out.txt", [](std::ostream& os) { os << "second\n"; });
  CHECK(contents(d / "out.txt") == "second\n");
  struct stat st {};
  REQUIRE(stat((d / "out.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  // Nothing but the output is left in the directory.
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
}

TEST_CASE("write_output: a failing writer leaves the old file and no temporary") {
  const Directory d;
  put(d / "out.txt", "old");
  CHECK_THROWS_WITH_AS(write_output(d / "out.txt",
                                    [](std::ostream& os) {
                                      os << "half";
                                      throw InputError("stopped");
                                    }),
                       "stopped", InputError);
  CHECK(contents(d / "out.txt") == "old");
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
}

TEST_CASE("write_output: symlinks planted at temporary-looking names are never written through") {
  const Directory d;
  put(d / "victim", "victim");
  for (const char* name : {"out.json.tmp", ".out.json.tmp", ".out.json.XXXXXX", "out.json~"})
    fs::create_symlink(d / "victim", d / name);
  write_output(d / "out.json", [](std::ostream& os) { os << "{}"; });
  CHECK(contents(d / "victim") == "victim");
  CHECK(contents(d / "out.json") == "{}");
}

TEST_CASE("write_output: a symlink is followed to its target, a dangling one is refused") {
  const Directory d;
  put(d / "target", "old");
  fs::create_symlink(d / "target", d / "link");
  write_output(d / "link", [](std::ostream& os) { os << "new"; });
  CHECK(fs::is_symlink(d / "link"));
  CHECK(contents(d / "target") == "new");
  fs::create_symlink(d / "missing", d / "dangling");
  CHECK_THROWS_AS(write_output(d / "dangling", [](std::ostream& os) { os << "x"; }), InputError);
  CHECK_FALSE(fs::exists(d / "missing"));
}

TEST_CASE("write_output: the same file as an input is refused, by inode, nothing written") {
  const Directory d;
  put(d / "in.json", "input");
  fs::create_hard_link(d / "in.json", d / "hard.json");
  fs::create_symlink(d / "in.json", d / "soft.json");
  for (const char* name : {"in.json", "hard.json", "soft.json"}) {
    CHECK_THROWS_WITH_AS(check_output(d / name, {d / "in.json"}),
                         doctest::Contains("is the same file as the input"), InputError);
    CHECK_THROWS_AS(write_output(
                        d / name, [](std::ostream& os) { os << "x"; }, {d / "in.json"}),
                    InputError);
  }
  CHECK(contents(d / "in.json") == "input");
}

TEST_CASE("write_output: a FIFO is written in place, a directory is refused") {
  const Directory d;
  REQUIRE(mkfifo((d / "fifo").c_str(), 0600) == 0);
  // No reader: an error, not a hang.
  CHECK_THROWS_WITH_AS(write_output(d / "fifo", [](std::ostream& os) { os << "x"; }),
                       doctest::Contains("a FIFO with no reader"), InputError);
  CHECK_THROWS_WITH_AS(write_output(d.path.string(), [](std::ostream& os) { os << "x"; }),
                       doctest::Contains("is a directory"), InputError);
  // With a reader (this process), the bytes go through the FIFO, which stays a FIFO.
  const int reader = open((d / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  write_output(d / "fifo", [](std::ostream& os) { os << "through"; });
  char got[16] = {};
  CHECK(read(reader, got, sizeof got) == 7);
  CHECK(std::string(got) == "through");
  close(reader);
  CHECK(fs::is_fifo(d / "fifo"));
}

TEST_CASE("InputFile: directories are refused, files over the size limit are refused") {
  const Directory d;
  CHECK_THROWS_WITH_AS(InputFile(d.path.string()), doctest::Contains("is a directory, not a file"),
                       InputError);
  CHECK_THROWS_WITH_AS(InputFile(d / "missing"), doctest::Contains("missing: cannot open the file"),
                       InputError);
  put(d / "big", std::string(2000, 'x'));
  Limits small;
  small.max_input_bytes = 1000;
  const LimitsFor scope(small);
  CHECK_THROWS_WITH_AS(read_input(d / "big"),
                       doctest::Contains("big: larger than the input limit of 1000 bytes"),
                       InputError);
  put(d / "small", std::string(999, 'y'));
  CHECK(read_input(d / "small").size() == 999);
}

namespace {

/// The current directory for one test, restored after it (the output rule is relative to it).
struct InDirectory {
  fs::path saved = fs::current_path();
  explicit InDirectory(const fs::path& p) { fs::current_path(p); }
  ~InDirectory() { fs::current_path(saved); }
};

/// The output settings for one test, restored after it.
struct OutputSettingsFor {
  OutputSettings saved = output_settings();
  explicit OutputSettingsFor(OutputSettings s) { set_output_settings(s); }
  ~OutputSettingsFor() { set_output_settings(saved); }
};

void write_x(const std::string& path) {
  write_output(path, [](std::ostream& os) { os << "x"; });
}

}  // namespace

TEST_CASE("write_output: inside the current directory, a link leading out of it is refused") {
  const Directory d;
  fs::create_directory(d / "checkout");
  fs::create_directory(d / "outside");
  put(d / "outside/victim", "victim");
  fs::create_symlink("../outside/victim", d / "checkout/report.xml");
  fs::create_symlink(d / "outside", d / "checkout/out");
  fs::create_directory(d / "checkout/deep");
  fs::create_symlink("../out", d / "checkout/deep/hop");
  const InDirectory in(d.path / "checkout");
  const std::string cwd = fs::current_path().string();
  CHECK_THROWS_WITH_AS(
      write_x("report.xml"),
      ("report.xml: the symbolic link report.xml leads to " +
       fs::canonical(d / "outside/victim").string() + ", outside the current directory " + cwd +
       "; refusing to write through it (--follow-output-links allows it)")
          .c_str(),
      InputError);
  CHECK_THROWS_WITH_AS(check_output("report.xml"),
                       doctest::Contains("the symbolic link report.xml"), InputError);
  CHECK_THROWS_WITH_AS(write_x("out/r.xml"), doctest::Contains("the symbolic link out leads to"),
                       InputError);
  CHECK_THROWS_WITH_AS(write_x(cwd + "/out/r.xml"),
                       doctest::Contains(("the symbolic link " + cwd + "/out leads to").c_str()),
                       InputError);
  CHECK_THROWS_WITH_AS(write_x("deep/hop/r.xml"),
                       doctest::Contains("the symbolic link deep/hop leads to"), InputError);
  CHECK(contents(d / "outside/victim") == "victim");
  CHECK_FALSE(fs::exists(d / "outside/r.xml"));
  // Nothing was left in the checkout either (no temporary).
  CHECK(std::distance(fs::directory_iterator(d / "checkout"), fs::directory_iterator()) == 3);
}

TEST_CASE("write_output: a link that stays inside is followed, --follow-output-links any link") {
  const Directory d;
  fs::create_directory(d / "checkout");
  fs::create_directory(d / "checkout/build");
  fs::create_directory(d / "outside");
  put(d / "checkout/build/r.xml", "old");
  put(d / "outside/victim", "victim");
  fs::create_symlink("build/r.xml", d / "checkout/inside.xml");
  fs::create_symlink("build", d / "checkout/builddir");
  fs::create_symlink("../outside/victim", d / "checkout/report.xml");
  const InDirectory in(d.path / "checkout");
  write_output("inside.xml", [](std::ostream& os) { os << "one"; });
  CHECK(contents("build/r.xml") == "one");
  CHECK(fs::is_symlink("inside.xml"));
  write_output("builddir/new.xml", [](std::ostream& os) { os << "two"; });
  CHECK(contents("build/new.xml") == "two");
  // Outside the current directory, a link is the machine's: followed.
  put(d / "outside/t", "old");
  fs::create_symlink("t", d / "outside/l");
  write_output("../outside/l", [](std::ostream& os) { os << "three"; });
  CHECK(contents(d / "outside/t") == "three");
  const OutputSettingsFor follow({.follow_links = true});
  write_output("report.xml", [](std::ostream& os) { os << "followed"; });
  CHECK(contents(d / "outside/victim") == "followed");
  CHECK(fs::is_symlink("report.xml"));
}

TEST_CASE("write_output: roots confine the file written, links resolved, when it is written") {
  const Directory d;
  fs::create_directory(d / "root");
  fs::create_directory(d / "outside");
  put(d / "outside/victim", "victim");
  fs::create_symlink(d / "outside/victim", d / "root/baseline.json");
  fs::create_symlink(d / "outside", d / "root/dir");
  // Follow every link, so that only the roots refuse.
  const OutputSettingsFor follow({.follow_links = true});
  const std::vector<std::string> roots{d / "root"};
  for (const std::string& path :
       {d / "root/baseline.json", d / "root/dir/new.json", d / "root/../outside/new.json"}) {
    CAPTURE(path);
    CHECK_THROWS_WITH_AS(write_output(
                             path, [](std::ostream& os) { os << "x"; }, {}, roots),
                         doctest::Contains(("outside " + fs::canonical(d / "root").string() +
                                            "; refusing to write it there")
                                               .c_str()),
                         InputError);
  }
  CHECK(contents(d / "outside/victim") == "victim");
  CHECK_FALSE(fs::exists(d / "outside/new.json"));
  write_output(
      d / "root/inside.json", [](std::ostream& os) { os << "in"; }, {}, roots);
  CHECK(contents(d / "root/inside.json") == "in");
}

TEST_CASE("write_output: /dev/null is written in place, a path through a file is refused") {
  write_x("/dev/null");
  CHECK(fs::is_character_file("/dev/null"));
  const Directory d;
  put(d / "file", "f");
  CHECK_THROWS_WITH_AS(write_x(d / "file/out"),
                       doctest::Contains("file/out: cannot write the file (Not a directory)"),
                       InputError);
  CHECK_THROWS_WITH_AS(write_x(d / "missing/out"),
                       doctest::Contains("missing: No such file or directory"), InputError);
  CHECK_THROWS_WITH_AS(write_x(d / "sub/"), doctest::Contains("cannot write the file"), InputError);
}

TEST_CASE("real_location resolves links and dots, keeps a missing tail, lies_within by component") {
  const Directory d;
  const std::string real = fs::canonical(d.path).string();
  fs::create_directory(d / "a");
  fs::create_symlink("a", d / "link");
  fs::create_symlink(d / "nowhere", d / "dangling");
  CHECK(real_location(d / "link") == real + "/a");
  CHECK(real_location(d / "link/../link/./x/y") == real + "/a/x/y");
  CHECK(real_location(d / "a/missing/../../b") == real + "/b");
  CHECK_THROWS_WITH_AS(real_location(d / "dangling"),
                       doctest::Contains("a symbolic link to a missing or unreachable file"),
                       InputError);
  CHECK(lies_within(real + "/a/x", real + "/a"));
  CHECK(lies_within(real + "/a", real + "/a"));
  CHECK_FALSE(lies_within(real + "/ab", real + "/a"));
  CHECK_FALSE(lies_within(real, real + "/a"));
  CHECK(lies_within("/etc", "/"));
}
