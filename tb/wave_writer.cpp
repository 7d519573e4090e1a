#include "tb/wave_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "models/config.h"
#include "tb/result_file.h"

extern "C" {
#include "fstapi.h"
}

namespace fm {

namespace {

// VCD (IEEE 1364 section 18) written directly: identifiers are short base-94 codes,
// 1-bit values as "0!", vectors as "b1010 !" without leading zeros.
class VcdWriter : public WaveWriter {
 public:
  VcdWriter(const std::string& path, const std::string& option, const std::string& comment)
      : path_(path), tmp_(path) {
    f_ = std::fopen(tmp_.path().c_str(), "wb");
    if (!f_) throw ConfigError(option + " " + path + ": cannot create the file");
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 16);
    std::fprintf(f_, "$version faultmesh $end\n$comment\n%s\n$end\n$timescale 1ns $end\n",
                 comment.c_str());
  }
  ~VcdWriter() override { abort(); }

  void push_scope(const std::string& name) override {
    std::fprintf(f_, "$scope module %s $end\n", name.c_str());
  }
  void pop_scope() override { std::fputs("$upscope $end\n", f_); }
  int add_var(const std::string& name, int width) override {
    const int id = (int)codes_.size();
    std::string code;
    for (int n = id;; n = n / 94 - 1) {  // bijective base 94 over '!'..'~'
      code += (char)('!' + n % 94);
      if (n < 94) break;
    }
    codes_.push_back(code);
    widths_.push_back(width);
    if (width == 1) std::fprintf(f_, "$var wire 1 %s %s $end\n", code.c_str(), name.c_str());
    else std::fprintf(f_, "$var wire %d %s %s [%d:0] $end\n", width, code.c_str(), name.c_str(), width - 1);
    return id;
  }
  void end_declarations() override { std::fputs("$enddefinitions $end\n", f_); }
  void time(uint64_t t) override {
    if (in_dumpvars_) std::fputs("$end\n", f_);
    in_dumpvars_ = false;
    std::fprintf(f_, "#%llu\n", (unsigned long long)t);
    if (first_time_) {
      std::fputs("$dumpvars\n", f_);
      in_dumpvars_ = true;
      first_time_ = false;
    }
  }
  void value(int id, uint64_t v) override {
    if (widths_[id] == 1) {
      std::fprintf(f_, "%c%s\n", (v & 1) ? '1' : '0', codes_[id].c_str());
      return;
    }
    char bits[66];
    int n = 0;
    for (int b = 63; b >= 0; --b)
      if (n || ((v >> b) & 1) || b == 0) bits[n++] = (char)('0' + ((v >> b) & 1));
    bits[n] = 0;
    std::fprintf(f_, "b%s %s\n", bits, codes_[id].c_str());
  }
  void note(const std::string& text) override {
    if (in_dumpvars_) {  // no command may sit inside $dumpvars
      std::fputs("$end\n", f_);
      in_dumpvars_ = false;
    }
    std::fprintf(f_, "$comment %s $end\n", text.c_str());
  }
  void close() override {
    if (!f_) return;
    if (in_dumpvars_) std::fputs("$end\n", f_);
    errno = 0;
    const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
    const int err = errno ? errno : EIO;  // ferror() after an earlier failed fprintf
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) fail(ok ? errno : err);
    if (!tmp_.in_place() && std::rename(tmp_.path().c_str(), path_.c_str()) != 0) fail(errno);
  }
  void abort() override {
    if (!f_) return;
    std::fclose(f_);
    f_ = nullptr;
    tmp_.remove();
  }

 private:
  std::string path_;
  ResultTemp tmp_;  // removed by a signal until renamed
  std::FILE* f_ = nullptr;
  std::vector<std::string> codes_;
  std::vector<int> widths_;
  bool first_time_ = true, in_dumpvars_ = false;

  [[noreturn]] void fail(int err) {
    tmp_.remove();
    throw WriteError(path_, err);
  }
};

// FST through gtkwave's fstapi (the copy Verilator ships): compressed, indexed, opens
// fast in GTKWave for long runs. Notes go to a string variable notes.text.
class FstWriter : public WaveWriter {
 public:
  FstWriter(const std::string& path, const std::string& option, const std::string& comment)
      : path_(path), tmp_(path), hier_(tmp_.path() + ".hier") {
    // fstWriterCreate does not report every failure; check the directory first.
    if (std::FILE* probe = std::fopen(tmp_.path().c_str(), "wb")) std::fclose(probe);
    else throw ConfigError(option + " " + path + ": cannot create the file");
    ctx_ = fstWriterCreate(tmp_.path().c_str(), 1);
    if (!ctx_) {
      tmp_.remove();
      throw ConfigError(option + " " + path + ": cannot create the file");
    }
    fstWriterSetPackType(ctx_, FST_WR_PT_LZ4);
    fstWriterSetTimescale(ctx_, -9);
    fstWriterSetVersion(ctx_, "faultmesh");
    // Not the wall-clock date fstapi writes by default: the same run gives the same
    // file, byte for byte (as the VCD, which has no $date).
    fstWriterSetDate(ctx_, "not recorded (reproducible output)");
    fstWriterSetComment(ctx_, comment.c_str());
  }
  ~FstWriter() override { abort(); }

  void push_scope(const std::string& name) override {
    fstWriterSetScope(ctx_, FST_ST_VCD_MODULE, name.c_str(), nullptr);
  }
  void pop_scope() override { fstWriterSetUpscope(ctx_); }
  int add_var(const std::string& name, int width) override {
    // Vectors carry their range in the name, as Verilator's FST writer does.
    const std::string full = width == 1 ? name : name + " [" + std::to_string(width - 1) + ":0]";
    handles_.push_back(fstWriterCreateVar(ctx_, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, (uint32_t)width,
                                          full.c_str(), 0));
    widths_.push_back(width);
    return (int)handles_.size() - 1;
  }
  void end_declarations() override {
    fstWriterSetScope(ctx_, FST_ST_VCD_MODULE, "notes", nullptr);
    text_ = fstWriterCreateVar(ctx_, FST_VT_GEN_STRING, FST_VD_IMPLICIT, 0, "text", 0);
    fstWriterSetUpscope(ctx_);
  }
  void time(uint64_t t) override { fstWriterEmitTimeChange(ctx_, t); }
  void value(int id, uint64_t v) override {
    fstWriterEmitValueChange64(ctx_, handles_[id], (uint32_t)widths_[id], v);
  }
  void note(const std::string& text) override {
    fstWriterEmitVariableLengthValueChange(ctx_, text_, text.data(), (uint32_t)text.size());
  }
  void close() override {
    if (!ctx_) return;
    fstWriterClose(ctx_);  // reports no error of its own
    ctx_ = nullptr;
    if (!tmp_.in_place() && std::rename(tmp_.path().c_str(), path_.c_str()) != 0) {
      const int err = errno;
      tmp_.remove();
      throw WriteError(path_, err);
    }
  }
  void abort() override {
    if (!ctx_) return;
    fstWriterClose(ctx_);
    ctx_ = nullptr;
    tmp_.remove();
  }

 private:
  std::string path_;
  // Removed by a signal until closed: the file, and the hierarchy file fstapi keeps
  // beside it until fstWriterClose.
  ResultTemp tmp_;
  TempFile hier_;
  void* ctx_ = nullptr;
  std::vector<fstHandle> handles_;
  std::vector<int> widths_;
  fstHandle text_ = 0;
};

}  // namespace

std::unique_ptr<WaveWriter> WaveWriter::open(WaveFormat f, const std::string& path,
                                             const std::string& option, const std::string& comment) {
  if (f == WaveFormat::Fst) return std::make_unique<FstWriter>(path, option, comment);
  return std::make_unique<VcdWriter>(path, option, comment);
}

}  // namespace fm
