#pragma once
/// Files as the user names them. Every failure (missing, a directory, a device, too large,
/// unreadable, a read error half-way) is an InputError naming the path; docs/limits.md says what
/// is refused and why.
///
/// Reading: "-" is standard input. Regular files and pipes are read; directories, devices and
/// sockets are refused. A file larger than limits().max_input_bytes is refused before reading,
/// and a pipe when it delivers more.
///
/// Writing (write_output): "-" is standard output. A regular file, or a new name, is written to a
/// fresh temporary in the same directory (created exclusively with an unguessable name, never
/// through a link) and renamed over it, so that no failure or interrupt leaves half a file. A
/// symbolic link is followed to its target (a dangling one is refused). A FIFO or a device is
/// written in place, never replaced; a FIFO whose reader has not opened it within
/// kFifoReaderWait is refused ("a FIFO with no reader"), never waited on for ever. A directory or socket is refused, and so is the same file as
/// one of the command's inputs (compared by device and inode, not by name).

#include <chrono>
#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

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

/// Writes the output `path` as described above; `inputs` are the files the command read, which
/// the output must not be. Throws InputError (nothing written) when refused.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::vector<std::string>& inputs = {});

/// The refusals of write_output, checked before a command does its work (write_output checks
/// them again when it writes).
void check_output(const std::string& path, const std::vector<std::string>& inputs = {});

}  // namespace phasecheck
