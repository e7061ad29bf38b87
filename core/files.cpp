#include "core/files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
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

// The temporary's directory and name, or an empty name; read by the signal handler, which
// removes it relative to the directory (unlinkat is async-signal-safe).
volatile int g_temporary_dir = -1;
char g_temporary[NAME_MAX + 1];
struct sigaction g_old[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporary_and_die(int signal) {
  if (g_temporary[0]) unlinkat(g_temporary_dir, g_temporary, 0);
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == signal) sigaction(signal, &g_old[i], nullptr);
  raise(signal);
}

/// Six random letters and digits: the unguessable part of a temporary's name (mkostemp's, but
/// created relative to a directory's descriptor, which mkostemp cannot).
std::string random_suffix() {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  std::string s(6, 'x');
  for (char& c : s) c = kLetters[random() % (sizeof kLetters - 1)];
  return s;
}

/// The temporary file's life: created exclusively next to the target (in the directory `dir`
/// refers to), removed unless renamed, and removed by SIGINT, SIGTERM and SIGHUP while it exists.
class Temporary {
 public:
  Temporary(int dir, const std::string& target, const std::string& shown) : dir_(dir) {
    if (target.size() + 8 > NAME_MAX) throw InputError(shown + ": the file name is too long");
    // O_CREAT | O_EXCL | O_NOFOLLOW with a random name: never an existing file or link.
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      name_ = "." + target + "." + random_suffix();
      fd_ = openat(dir, name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd_ < 0 && errno != EEXIST)
        throw InputError(shown + ": cannot write the file (" + error_text() + ")");
    }
    if (fd_ < 0) throw InputError(shown + ": cannot write the file (no free temporary name)");
    g_temporary_dir = dir;
    std::memcpy(g_temporary, name_.c_str(), name_.size() + 1);
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
    if (!renamed_) unlinkat(dir_, name_.c_str(), 0);
    g_temporary[0] = 0;
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  int fd() const { return fd_; }
  /// Closes the file and renames it over `target` in the same directory. The rename replaces
  /// the directory entry itself: whatever stands there now, a link included, is not followed.
  void commit(const std::string& target, const std::string& shown) {
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0) throw InputError(shown + ": cannot write the file (" + error_text() + ")");
    if (renameat(dir_, name_.c_str(), dir_, target.c_str()) != 0)
      throw InputError(shown + ": cannot replace the file (" + error_text() + ")");
    renamed_ = true;
  }

 private:
  int dir_;
  int fd_ = -1;
  std::string name_;
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

// --- walking a path

namespace {

OutputSettings g_output_settings;

/// Why a walk stopped: the path as written up to the component concerned, and the reason.
struct WalkError {
  std::string where, why;
};

/// Where a walk ended: the real directory (no link in it) holding the last component, and the
/// component (empty when the path names a directory).
struct Walked {
  std::string dir, name;
  bool exists = false;
  struct stat st{};  ///< the file, a link's target, when it exists
};

/// A symbolic link met on the way: the path as written up to it, the real directory it lies in,
/// and the real place it leads to. May throw to refuse it.
using OnLink =
    std::function<void(const std::string& link, const std::string& in, const std::string& to)>;

std::string join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

std::string parent_of(const std::string& real) {
  const std::size_t slash = real.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : real.substr(0, slash);
}

std::string current_directory() {
  std::unique_ptr<char, decltype(&std::free)> cwd(getcwd(nullptr, 0), &std::free);
  if (!cwd || cwd.get()[0] != '/')
    throw InputError("cannot find the current directory (" + error_text() + ")");
  return cwd.get();
}

/// Walks `path` from the current directory (or "/") one component at a time, as the kernel
/// resolves it, calling `on_link` at every symbolic link. A missing component ends the walk when
/// it is the last; earlier, it is an error unless `missing_tail`, when the rest is taken as
/// written. Loops of links are the kernel's to find (realpath: ELOOP); the walk itself is a
/// loop over the components, never recursive.
Walked walk(const std::string& path, bool missing_tail, const OnLink& on_link) {
  std::vector<std::string> parts;
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  if (!path.empty() && path.back() == '/') parts.push_back(".");  // "out/" names a directory
  std::string current = path.starts_with('/') ? "/" : current_directory();
  std::string written = path.starts_with('/') ? "/" : "";
  bool missing = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    written += (written.empty() || written.back() == '/' ? "" : "/") + part;
    if (part == ".") continue;
    if (part == "..") {
      current = parent_of(current);
      continue;
    }
    const std::string next = join(current, part);
    struct stat st{};
    if (missing || lstat(next.c_str(), &st) != 0) {
      if (!missing && errno != ENOENT) throw WalkError{written, error_text()};
      if (last) return {current, part, false, {}};
      if (!missing_tail) throw WalkError{written, std::strerror(ENOENT)};
      missing = true;
      current = next;
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      std::unique_ptr<char, decltype(&std::free)> to(realpath(next.c_str(), nullptr), &std::free);
      if (!to)
        throw WalkError{written,
                        "a symbolic link to a missing or unreachable file (" + error_text() + ")"};
      const std::string target = to.get();
      on_link(written, current, target);
      if (stat(target.c_str(), &st) != 0) throw WalkError{written, error_text()};
      if (last && target != "/")
        return {parent_of(target), target.substr(target.rfind('/') + 1), true, st};
      if (!S_ISDIR(st.st_mode)) throw WalkError{path, std::strerror(ENOTDIR)};
      current = target;
      continue;
    }
    if (last) return {current, part, true, st};
    if (!S_ISDIR(st.st_mode)) throw WalkError{path, std::strerror(ENOTDIR)};  // as open() says
    current = next;
  }
  // The path names a directory ("", ".", "..", "out/").
  Walked w{current, "", !missing, {}};
  if (w.exists && stat(current.c_str(), &w.st) != 0) throw WalkError{written, error_text()};
  return w;
}

/// Where an output goes, as walked at this moment.
struct Destination {
  Walked file;
  struct stat dir{};  ///< the directory holding it, to find it again by descriptor
};

/// The list of `roots` for messages: "a, b".
std::string listed(const std::vector<std::string>& roots) {
  std::string s;
  for (const std::string& r : roots) s += (s.empty() ? "" : ", ") + r;
  return s;
}

Destination resolve_output(const std::string& path, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& roots) {
  if (path.empty()) throw InputError("an output file name is empty");
  const std::string cwd = current_directory();
  const bool follow = output_settings().follow_links;
  Destination d;
  try {
    // Inside the current directory (the checkout a CI job runs in), a link may not lead out of
    // it: a pull request that commits `report.xml -> ~/.bashrc` or `out -> /etc` would make the
    // job overwrite what it points to. Links outside it (/tmp on some systems) are the machine's.
    d.file = walk(
        path, false, [&](const std::string& link, const std::string& in, const std::string& to) {
          if (!follow && lies_within(in, cwd) && !lies_within(to, cwd))
            throw InputError(path + ": the symbolic link " + link + " leads to " + to +
                             ", outside the current directory " + cwd +
                             "; refusing to write through it (--follow-output-links allows it)");
        });
  } catch (const WalkError& e) {
    if (e.where == path && e.why.starts_with("a symbolic link"))
      throw InputError(path + ": " + e.why + "; refusing to create a file through it");
    throw InputError(path + ": cannot write the file (" +
                     (e.where == path ? e.why : e.where + ": " + e.why) + ")");
  }
  const Walked& w = d.file;
  if (w.name.empty() || (w.exists && S_ISDIR(w.st.st_mode)))
    throw InputError(path + ": is a directory, not a file");
  if (w.exists && S_ISSOCK(w.st.st_mode)) throw InputError(path + ": is a socket, not a file");
  if (stat(w.dir.c_str(), &d.dir) != 0)
    throw InputError(path + ": cannot write the file (" + w.dir + ": " + error_text() + ")");
  if (!roots.empty()) {
    std::vector<std::string> real_roots;
    for (const std::string& root : roots) real_roots.push_back(real_location(root));
    if (std::none_of(real_roots.begin(), real_roots.end(),
                     [&](const std::string& root) { return lies_within(w.dir, root); }))
      throw InputError(path + ": leads to " + join(w.dir, w.name) + ", outside " +
                       listed(real_roots) + "; refusing to write it there");
  }
  if (!w.exists) return d;
  for (const std::string& input : inputs) {
    struct stat in{};
    if (!input.empty() && input != "-" && stat(input.c_str(), &in) == 0 &&
        in.st_dev == w.st.st_dev && in.st_ino == w.st.st_ino)
      throw InputError(path + ": is the same file as the input " + input +
                       "; refusing to overwrite an input");
  }
  return d;
}

/// A descriptor of the destination's directory, which must still be the one walked (a
/// directory swapped for a link since is refused rather than written through).
int open_directory(const Destination& d, const std::string& path) {
  const int fd = ::open(d.file.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    throw InputError(path + ": cannot write the file (" + d.file.dir + ": " + error_text() + ")");
  struct stat now{};
  if (fstat(fd, &now) != 0 || now.st_dev != d.dir.st_dev || now.st_ino != d.dir.st_ino) {
    close(fd);
    throw InputError(path + ": the directory " + d.file.dir +
                     " changed while the output was written; refusing to write");
  }
  return fd;
}

/// Writes a FIFO or a device in place, never replacing it. O_NONBLOCK makes a FIFO without a
/// reader an error instead of a hang; a reader started next to this program (`cat fifo &`) gets
/// kFifoReaderWait to open its end.
void write_in_place(int dir, const Destination& d, const std::string& path,
                    const std::function<void(std::ostream&)>& write) {
  const char* name = d.file.name.c_str();
  const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
  int fd = openat(dir, name, flags);
  for (auto waited = std::chrono::milliseconds(0);
       fd < 0 && errno == ENXIO && waited < kFifoReaderWait;
       waited += std::chrono::milliseconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    fd = openat(dir, name, flags);
  }
  if (fd < 0) {
    const std::string why = errno == ENXIO ? "a FIFO with no reader" : error_text();
    throw InputError(path + ": cannot write to " + kind_of(d.file.st) + " (" + why + ")");
  }
  struct stat now{};
  if (fstat(fd, &now) != 0 || now.st_dev != d.file.st.st_dev || now.st_ino != d.file.st.st_ino) {
    close(fd);
    throw InputError(path + ": changed while the output was written; refusing to write");
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  try {
    write_to(fd, path, write);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

}  // namespace

const OutputSettings& output_settings() { return g_output_settings; }
void set_output_settings(const OutputSettings& settings) { g_output_settings = settings; }

std::string real_location(const std::string& path) {
  try {
    const Walked w =
        walk(path, true, [](const std::string&, const std::string&, const std::string&) {});
    return w.name.empty() ? w.dir : join(w.dir, w.name);
  } catch (const WalkError& e) {
    throw InputError(path + ": " + (e.where == path ? e.why : e.where + ": " + e.why));
  }
}

bool lies_within(const std::string& path, const std::string& root) {
  if (root == "/") return path.starts_with('/');
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

void check_output(const std::string& path, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& roots) {
  if (path != "-") resolve_output(path, inputs, roots);
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::vector<std::string>& inputs, const std::vector<std::string>& roots) {
  if (path == "-") {
    std::cout.flush();
    write_to(STDOUT_FILENO, "<stdout>", write);
    return;
  }
  const Destination d = resolve_output(path, inputs, roots);
  const int dir = open_directory(d, path);
  try {
    if (d.file.exists && !S_ISREG(d.file.st.st_mode)) {
      write_in_place(dir, d, path, write);
    } else {
      Temporary temporary(dir, d.file.name, path);
      fchmod(temporary.fd(), d.file.exists ? (d.file.st.st_mode & 07777) : default_mode());
      write_to(temporary.fd(), path, write);
      temporary.commit(d.file.name, path);
    }
  } catch (...) {
    close(dir);
    throw;
  }
  close(dir);
}

}  // namespace phasecheck
