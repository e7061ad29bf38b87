#pragma once
/// Other programs started by phasecheck (mpirun, smpirun, external schedule generators): each in
/// a process group of its own, with a deadline, killed whole on timeout or when phasecheck is
/// interrupted. No shell unless the caller asks for one (`shell_command`).

#include <optional>
#include <string>
#include <vector>

namespace phasecheck::launch {

struct Command {
  std::vector<std::string> argv;  ///< argv[0] is searched in PATH
  std::string stdin_file;         ///< read standard input from this file; empty: /dev/null
  /// Standard output goes to this new file (created exclusively: it must not exist); empty: it
  /// is captured in Finished::out.
  std::string stdout_file;
  std::string directory;          ///< working directory; empty: phasecheck's own
  double timeout = 300;           ///< seconds before the whole process group is killed
};

/// `sh -c TEXT`: for a command the user wrote as one string (fuzz --generator, a gate
/// generator), which may have arguments, pipes or a `cd`.
std::vector<std::string> shell_command(const std::string& text);

struct Finished {
  std::optional<int> status;  ///< exit code; empty when killed by a signal or timed out
  int signal = 0;             ///< the signal that ended it, if one did
  bool timed_out = false;
  std::string out, err;  ///< what it printed (each at most `kMaxCaptured` bytes, the tail kept)

  /// "exit 3", "killed by signal 11", "timed out after 10 s" — for messages.
  std::string describe(double timeout) const;
  /// The last `lines` lines of standard error, for messages.
  std::string err_tail(std::size_t lines = 20) const;
};

/// Output kept from a child: a runaway child cannot fill phasecheck's memory.
inline constexpr std::size_t kMaxCaptured = std::size_t(64) << 20;

/// Whether phasecheck received SIGINT or SIGTERM while a child ran: from then on run() starts
/// nothing. For callers whose own callers swallow exceptions (a rapidcheck property).
bool interrupted();

/// A directory of this process's own (mode 0700, unguessable name) in the system's temporary
/// directory, removed with everything in it when this goes out of scope: for the files a child
/// reads and writes, where nobody else can plant a name.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  /// `name` inside it.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs `c` to the end or to its deadline. Throws InputError when it cannot be started, and when
/// phasecheck receives SIGINT or SIGTERM meanwhile (after killing the group and cleaning up), or
/// did earlier (see interrupted()).
Finished run(const Command& c);

}  // namespace phasecheck::launch
