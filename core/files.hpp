#pragma once
/// Files as the user names them. Every failure (missing, a directory, a device, too large,
/// unreadable, a read error half-way) is an InputError naming the path; docs/limits.md says what
/// is refused and why.
///
/// Reading: "-" is standard input. Regular files and pipes are read; directories, devices and
/// sockets are refused. A file larger than limits().max_input_bytes is refused before reading,
/// and a pipe when it delivers more.
///
/// Writing (write_output): "-" is standard output. The path is walked one component at a time
/// from the current directory (or "/"); inside the current directory, a symbolic link that leads
/// out of it is refused, unless output_settings().follow_links (--follow-output-links). A
/// regular file, or a new name, is written to a fresh temporary in the same directory (created
/// exclusively with an unguessable name, relative to the directory's descriptor, never through a
/// link) and renamed over it, so that no failure or interrupt leaves half a file. A symbolic link
/// allowed by the rule above is followed to its target (a dangling one is refused). A FIFO or a
/// device is written in place, never replaced; a FIFO whose reader has not opened it within
/// kFifoReaderWait is refused ("a FIFO with no reader"), never waited on for ever. A directory or
/// socket is refused, and so is the same file as one of the command's inputs (compared by device
/// and inode, not by name).

#include <chrono>
#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace phasecheck {

/// An input opened for reading, with the checks above. `stream()` throws InputError (naming the
/// file) from inside its reads on a read error or when the size limit is passed.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::istream& stream();
  /// The name for messages: the path, or "<stdin>" for "-".
  const std::string& name() const { return name_; }

 private:
  class Buffer;
  std::string name_;
  int fd_ = -1;
  bool owned_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::istream> stream_;
};

/// The name of an input in messages and reports: the path, or "<stdin>" for "-".
std::string input_name(const std::string& path);

/// Runs `work` and returns what it returns; an InputError it throws is thrown again with
/// "<source>: " in front of its message, so that the message names the input it is about.
/// `source` is a path ("-" is named "<stdin>", as input_name does) or a place ("x.json: case
/// 'a'"). The one way to add a source to input errors: no catch and re-throw by hand.
template <class Work>
decltype(auto) with_source(const std::string& source, Work&& work) {
  try {
    return std::forward<Work>(work)();
  } catch (const InputError& e) {
    throw InputError(input_name(source) + ": " + e.what());
  }
}

/// The short name of a machine file in tables and plot names: "examples/ring-6/topology.json"
/// is "ring-6" (the directory names the machine), "machines/fat-16.json" is "fat-16" (the file
/// does), "-" is "<stdin>".
std::string machine_name(const std::string& path);

/// Throws InputError when "-" (standard input) is among `paths` more than once ("standard input
/// (-) is given for more than one input: it can be read once").
void require_stdin_once(const std::vector<std::string>& paths);

/// The whole content of an input (with the checks above).
std::string read_input(const std::string& path);

/// How long write_output waits for a FIFO's reader to open it.
inline constexpr std::chrono::milliseconds kFifoReaderWait{2000};

/// How outputs treat symbolic links, for the whole process: set once by the command line
/// (--follow-output-links) before any command runs, like limits().
struct OutputSettings {
  /// Follow a link inside the current directory even when it leads out of it.
  bool follow_links = false;
};
const OutputSettings& output_settings();
void set_output_settings(const OutputSettings& settings);

/// Writes the output `path` as described above; `inputs` are the files the command read, which
/// the output must not be. When `roots` is not empty, the file written (links resolved) must lie
/// inside one of these directories as well (gate --update: the manifest's directory and the
/// --allow-outside roots), checked when it is written. Throws InputError (nothing written) when
/// refused.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::vector<std::string>& inputs = {},
                  const std::vector<std::string>& roots = {});

/// The refusals of write_output, checked before a command does its work (write_output checks
/// them again when it writes).
void check_output(const std::string& path, const std::vector<std::string>& inputs = {},
                  const std::vector<std::string>& roots = {});

/// Where `path` really is: absolute, with every symbolic link resolved and "." and ".." applied,
/// as the kernel would resolve it; a part that does not exist yet is taken as written. Throws
/// InputError naming `path` for a dangling link (it would lead nowhere phasecheck can judge) or
/// a component that cannot be examined. Paths are walked a component at a time, never recursively.
std::string real_location(const std::string& path);

/// Whether the real location `path` is `root` or lies below it (both as real_location gives).
bool lies_within(const std::string& path, const std::string& root);

}  // namespace phasecheck
