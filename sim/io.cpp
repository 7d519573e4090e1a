#include "sim/io.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "models/noc/clock.h"

namespace fm {

namespace {

std::string dir_of(const std::string& path) {
  const auto k = path.rfind('/');
  return k == std::string::npos ? "." : (k == 0 ? "/" : path.substr(0, k));
}

}  // namespace

int threads_per_child(int jobs) { return std::max(1, Clock::threads_for(0) / std::max(1, jobs)); }

void make_dirs(const std::string& path, const char* option) {
  check_path_value(path, option, "a directory");
  std::string cur;
  std::istringstream in(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(in, part, '/')) {
    if (part.empty()) continue;
    cur += (cur.empty() || cur.back() == '/' ? "" : "/") + part;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw UsageError(std::string(option) + " " + path + ": cannot create directory '" + cur +
                       "': " + std::strerror(errno));
    struct stat st;
    if (stat(cur.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw UsageError(std::string(option) + " " + path + ": '" + cur + "' is not a directory");
  }
  if (access(path.c_str(), W_OK) != 0)
    throw UsageError(std::string(option) + " " + path + ": directory is not writable");
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const ResultTemp tf(path);  // removed by a signal until renamed
  const std::string& tmp = tf.path();
  auto fail = [&](int err) {
    tf.remove();
    throw WriteError(path, err);
  };
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(errno);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      fail(err);
    }
    done += (size_t)n;
  }
  if (close(fd) != 0) fail(errno);
  if (!tf.in_place() && std::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
}

void check_path_value(const std::string& path, const char* option, const char* what) {
  if (path.empty()) throw UsageError(std::string(option) + " '': expected " + what + ", got an empty value");
  if (path[0] == '-')
    throw UsageError(std::string(option) + " " + path + ": expected " + what +
                     ", got what looks like an option (a path that starts with '-': write ./" + path + ")");
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  const bool ea = stat(a.c_str(), &sa) == 0, eb = stat(b.c_str(), &sb) == 0;
  if (ea || eb) return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  auto canonical = [](const std::string& p) {
    char buf[PATH_MAX];
    const std::string d = dir_of(p), name = p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
    return (realpath(d.c_str(), buf) ? std::string(buf) : d) + "/" + name;
  };
  return canonical(a) == canonical(b);
}

void check_writable(const std::string& path, const char* option) {
  check_path_value(path, option, "a file path");
  if (path.back() == '/') throw UsageError(std::string(option) + " " + path + ": expected a file path, not a directory");
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw UsageError(std::string(option) + " " + path + ": is a directory, expected a file path");
    if (!S_ISREG(st.st_mode)) {  // a device or a pipe: written in place (result_temp_path)
      if (access(path.c_str(), W_OK) != 0) throw UsageError(std::string(option) + " " + path + ": not writable");
      return;
    }
  }
  const std::string d = dir_of(path);
  if (access(d.c_str(), W_OK) != 0)
    throw UsageError(std::string(option) + " " + path + ": directory '" + d +
                     "' does not exist or is not writable");
}

}  // namespace fm
