#include "launch/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/limits.hpp"

extern char** environ;

namespace phasecheck::launch {
namespace {

// Sticky: once phasecheck was interrupted, no further child is started.
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

/// SIGINT and SIGTERM noted (not fatal) while alive, so that the child's process group is killed
/// before phasecheck exits.
class InterruptGuard {
 public:
  InterruptGuard() {
    struct sigaction a {};
    a.sa_handler = on_interrupt;
    sigemptyset(&a.sa_mask);
    sigaction(SIGINT, &a, &old_int_);
    sigaction(SIGTERM, &a, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// A pipe's two ends, closed when this goes out of scope.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0)
      throw InputError(std::string("cannot create a pipe (") + std::strerror(errno) + ")");
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

/// Appends what `fd` has to `into`, keeping at most kMaxCaptured bytes (the newest). False at
/// the end of the stream.
bool drain(int fd, std::string& into) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  if (into.size() > kMaxCaptured) into.erase(0, into.size() - kMaxCaptured);
  return true;
}

void kill_group(pid_t pid, int& status) {
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

bool interrupted() { return g_interrupted != 0; }

std::vector<std::string> shell_command(const std::string& text) { return {"/bin/sh", "-c", text}; }

ScratchDirectory::ScratchDirectory() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "phasecheck-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw InputError("cannot create a temporary directory in " +
                     std::filesystem::temp_directory_path().string() + " (" +
                     std::strerror(errno) + ")");
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string Finished::describe(double timeout) const {
  if (timed_out) {
    char text[64];
    std::snprintf(text, sizeof text, "timed out after %g s", timeout);
    return text;
  }
  if (status) return "exit " + std::to_string(*status);
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

std::string Finished::err_tail(std::size_t lines) const {
  std::size_t end = err.size();
  if (end > 0 && err[end - 1] == '\n') --end;
  std::size_t at = end;
  for (std::size_t seen = 0; at > 0; --at)
    if (err[at - 1] == '\n' && ++seen == lines) break;
  return err.substr(at, end - at);
}

Finished run(const Command& c) {
  if (c.argv.empty()) throw InputError("no command to run");
  check_timeout(c.timeout);
  const InterruptGuard guard;
  if (g_interrupted) throw InputError("interrupted: " + c.argv[0] + " was not started");
  Pipe out, err;
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  const std::string input = c.stdin_file.empty() ? "/dev/null" : c.stdin_file;
  posix_spawn_file_actions_addopen(&files, 0, input.c_str(), O_RDONLY, 0);
  if (c.stdout_file.empty())
    posix_spawn_file_actions_adddup2(&files, out.fd[1], 1);
  else
    posix_spawn_file_actions_addopen(&files, 1, c.stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_adddup2(&files, err.fd[1], 2);
  if (!c.directory.empty()) posix_spawn_file_actions_addchdir_np(&files, c.directory.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group (killed whole), default signal dispositions and an empty mask.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  std::vector<char*> args;
  for (const auto& a : c.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &files, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0)
    throw InputError(c.argv[0] + ": cannot start it (" + std::strerror(spawned) +
                     (c.stdout_file.empty() ? "" : "; its output file is " + c.stdout_file) + ")");
  out.close_end(1);
  err.close_end(1);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(c.timeout));
  Finished f;
  bool open[2] = {true, true};
  int status = 0;
  bool exited = false;
  while (open[0] || open[1] || !exited) {
    if (g_interrupted) {
      kill_group(pid, status);
      throw InputError("interrupted: " + c.argv[0] + " and its processes were stopped");
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill_group(pid, status);
      f.timed_out = true;
      return f;
    }
    if (!exited) {
      const pid_t done = waitpid(pid, &status, WNOHANG);
      exited = done == pid;
    }
    pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    if (!open[0]) fds[0].fd = -1;
    if (!open[1]) fds[1].fd = -1;
    // Short waits while the child lives so that its exit and interrupts are noticed.
    const int wait_ms = static_cast<int>(std::min<std::int64_t>(left.count(), 50));
    if (open[0] || open[1]) {
      if (poll(fds, 2, wait_ms) < 0 && errno != EINTR)
        throw InputError(std::string("poll failed (") + std::strerror(errno) + ")");
      if (open[0] && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) open[0] = drain(out.fd[0], f.out);
      if (open[1] && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) open[1] = drain(err.fd[0], f.err);
    } else if (!exited) {
      usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
  }
  if (WIFEXITED(status)) f.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  return f;
}

}  // namespace phasecheck::launch
