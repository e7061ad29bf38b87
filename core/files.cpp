#include "core/files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck {
namespace {

std::string error_text() { return std::strerror(errno); }

/// Why an input larger than the limit is refused.
std::string too_large() {
  return "larger than the input limit of " + format_bytes(limits().max_input_bytes) +
         " (raise it with --max-input-size)";
}

/// What kind of file `st` is, for messages.
const char* kind_of(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  return "not a regular file";
}

/// Writes all of [data, data + size) to `fd`; false on an error (errno set).
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// A std::ostream's buffer over a file descriptor; remembers the first write error.
class FdOutput : public std::streambuf {
 public:
  explicit FdOutput(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  /// 0 when everything was written, else the errno of the first failure.
  int finish() {
    flush();
    return error_;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n >= static_cast<std::streamsize>(sizeof buffer_)) {  // large writes bypass the buffer
      if (!flush()) return 0;
      if (!write_all(fd_, s, static_cast<std::size_t>(n))) {
        if (!error_) error_ = errno;
        return 0;
      }
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }

 private:
  bool flush() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_, buffer_ + sizeof buffer_);
    if (error_) return false;
    if (n > 0 && !write_all(fd_, buffer_, n)) {
      error_ = errno;
      return false;
    }
    return true;
  }
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

/// Runs `write` into `fd`; throws InputError naming `name` when it fails.
void write_to(int fd, const std::string& name, const std::function<void(std::ostream&)>& write) {
  FdOutput buffer(fd);
  std::ostream os(&buffer);
  write(os);
  if (const int error = buffer.finish())
    throw InputError(name + ": cannot write the file (" + std::strerror(error) + ")");
  if (!os) throw InputError(name + ": write failed");
}

// --- the temporary of an output being written, removed when phasecheck is interrupted

char g_temporary[PATH_MAX + 1];  // the path, or empty; read by the signal handler
struct sigaction g_old[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporary_and_die(int signal) {
  if (g_temporary[0]) unlink(g_temporary);
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == signal) sigaction(signal, &g_old[i], nullptr);
  raise(signal);
}

/// The temporary file's life: created exclusively next to the target, removed unless renamed,
/// and removed by SIGINT, SIGTERM and SIGHUP while it exists.
class Temporary {
 public:
  explicit Temporary(const std::filesystem::path& target) {
    const std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
    std::string pattern = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    if (pattern.size() > PATH_MAX) throw InputError(target.string() + ": the path is too long");
    // mkstemp: O_CREAT | O_EXCL with a random name, so never an existing file or link.
    fd_ = mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0)
      throw InputError(target.string() + ": cannot write the file (" + error_text() + ")");
    path_ = pattern;
    std::memcpy(g_temporary, path_.c_str(), path_.size() + 1);
    struct sigaction a{};
    a.sa_handler = remove_temporary_and_die;
    sigemptyset(&a.sa_mask);
    for (int i = 0; i < 3; ++i) {
      sigaction(kSignals[i], nullptr, &g_old[i]);
      // An ignored signal (SIGINT in a background job) stays ignored: it would not end us.
      if (g_old[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &a, nullptr);
    }
  }
  ~Temporary() {
    if (fd_ >= 0) close(fd_);
    if (!renamed_) unlink(path_.c_str());
    g_temporary[0] = 0;
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  int fd() const { return fd_; }
  /// Closes the file and renames it over `target`.
  void commit(const std::filesystem::path& target) {
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0)
      throw InputError(target.string() + ": cannot write the file (" + error_text() + ")");
    if (std::rename(path_.c_str(), target.c_str()) != 0)
      throw InputError(target.string() + ": cannot replace the file (" + error_text() + ")");
    renamed_ = true;
  }

 private:
  int fd_ = -1;
  std::string path_;
  bool renamed_ = false;
};

mode_t default_mode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

// --- reading

class InputFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, const std::string& name) : fd_(fd), name_(name), data_(1 << 20) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    ssize_t n;
    do n = ::read(fd_, data_.data(), data_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) throw InputError(name_ + ": read error (" + error_text() + ")");
    if (n == 0) return traits_type::eof();
    total_ += static_cast<std::uint64_t>(n);
    if (total_ > limits().max_input_bytes) throw InputError(name_ + ": " + too_large());
    setg(data_.data(), data_.data(), data_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  const std::string& name_;
  std::vector<char> data_;
  std::uint64_t total_ = 0;
};

InputFile::InputFile(const std::string& path) : name_(input_name(path)) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    // O_NONBLOCK only keeps open() from waiting for a FIFO's writer; it is cleared below.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd_ < 0) throw InputError(path + ": cannot open the file (" + error_text() + ")");
    owned_ = true;
  }
  // The constructor does not finish when a check fails, so the destructor would not close fd_.
  const auto refuse = [&](const std::string& why) {
    if (owned_) close(fd_);
    throw InputError(name_ + ": " + why);
  };
  struct stat st{};
  if (fstat(fd_, &st) != 0) refuse("cannot read the file (" + error_text() + ")");
  const bool readable = S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
                        (path == "-" && S_ISCHR(st.st_mode));  // a terminal as standard input
  if (!readable) refuse(std::string("is ") + kind_of(st) + ", not a file");
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limits().max_input_bytes)
    refuse(too_large());
  if (owned_) fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  buffer_ = std::make_unique<Buffer>(fd_, name_);
  stream_ = std::make_unique<std::istream>(buffer_.get());
  stream_->exceptions(std::ios::badbit);  // our InputErrors pass through the stream unchanged
}

InputFile::~InputFile() {
  stream_.reset();
  buffer_.reset();
  if (owned_ && fd_ >= 0) close(fd_);
  fd_ = -1;
}

std::istream& InputFile::stream() { return *stream_; }

std::string input_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string machine_name(const std::string& path) {
  if (path == "-") return input_name(path);
  const std::filesystem::path p(path);
  if (p.filename() == "topology.json" && !p.parent_path().filename().empty())
    return p.parent_path().filename().string();
  return p.stem().string();
}

void require_stdin_once(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw InputError("standard input (-) is given for more than one input: it can be read once");
}

std::string read_input(const std::string& path) {
  InputFile in(path);
  std::string text;
  std::istream& s = in.stream();
  char chunk[1 << 16];
  while (s.read(chunk, sizeof chunk) || s.gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(s.gcount()));
  return text;
}

// --- writing

namespace {

/// Where an output goes: the file itself or a symbolic link's target, and what is there now.
struct Destination {
  std::filesystem::path target;
  bool exists = false;
  struct stat st{};
};

Destination resolve_output(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw InputError("an output file name is empty");
  Destination d{path};
  d.exists = lstat(path.c_str(), &d.st) == 0;
  if (!d.exists && errno != ENOENT)
    throw InputError(path + ": cannot write the file (" + error_text() + ")");
  if (!d.exists) {
    // Checked before the work, which may be long: the file can be made only in a directory.
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    struct stat dir{};
    if (!parent.empty() && stat(parent.c_str(), &dir) != 0)
      throw InputError(path + ": cannot write the file (" + parent.string() + ": " + error_text() +
                       ")");
    if (!parent.empty() && !S_ISDIR(dir.st_mode))
      throw InputError(path + ": cannot write the file (" + parent.string() +
                       " is not a directory)");
  }
  if (d.exists && S_ISLNK(d.st.st_mode)) {
    char resolved[PATH_MAX + 1];
    if (!realpath(path.c_str(), resolved))
      throw InputError(path + ": a symbolic link to a missing or unreachable file (" +
                       error_text() + "); refusing to create a file through it");
    d.target = resolved;
    if (stat(resolved, &d.st) != 0)
      throw InputError(path + ": cannot write the file (" + error_text() + ")");
  }
  if (!d.exists) return d;
  if (S_ISDIR(d.st.st_mode)) throw InputError(path + ": is a directory, not a file");
  if (S_ISSOCK(d.st.st_mode)) throw InputError(path + ": is a socket, not a file");
  for (const std::string& input : inputs) {
    struct stat in{};
    if (!input.empty() && input != "-" && stat(input.c_str(), &in) == 0 &&
        in.st_dev == d.st.st_dev && in.st_ino == d.st.st_ino)
      throw InputError(path + ": is the same file as the input " + input +
                       "; refusing to overwrite an input");
  }
  return d;
}

}  // namespace

void check_output(const std::string& path, const std::vector<std::string>& inputs) {
  if (path != "-") resolve_output(path, inputs);
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::vector<std::string>& inputs) {
  if (path == "-") {
    std::cout.flush();
    write_to(STDOUT_FILENO, "<stdout>", write);
    return;
  }
  const Destination d = resolve_output(path, inputs);
  if (d.exists && !S_ISREG(d.st.st_mode)) {
    // A FIFO or a device: written in place, never replaced. O_NONBLOCK makes a FIFO without a
    // reader an error instead of a hang; a reader started next to this program (`cat fifo &`)
    // gets kFifoReaderWait to open its end.
    int fd = ::open(d.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    for (auto waited = std::chrono::milliseconds(0);
         fd < 0 && errno == ENXIO && waited < kFifoReaderWait;
         waited += std::chrono::milliseconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      fd = ::open(d.target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    }
    if (fd < 0) {
      const std::string why = errno == ENXIO ? "a FIFO with no reader" : error_text();
      throw InputError(path + ": cannot write to " + kind_of(d.st) + " (" + why + ")");
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    try {
      write_to(fd, path, write);
    } catch (...) {
      close(fd);
      throw;
    }
    close(fd);
    return;
  }
  Temporary temporary(d.target);
  fchmod(temporary.fd(), d.exists ? (d.st.st_mode & 07777) : default_mode());
  write_to(temporary.fd(), path, write);
  temporary.commit(d.target);
}

}  // namespace phasecheck
