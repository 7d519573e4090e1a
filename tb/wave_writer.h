// Waveform file writers for the tracer (tb/tracer.h): a compact VCD writer of our own and
// an FST writer over the FST API shipped with Verilator (gtkwave/fstapi.c). Both take
// scopes and variables (unsigned, 1..64 bits) in a declaration phase, then timestamps
// in increasing order with value changes; the caller (WaveRecorder) only passes values
// that changed. A file is written under a temporary name (result_temp_path) and renamed to
// its real name by close(), so a failed or aborted run leaves nothing half-written; a
// signal removes the temporary file too (ResultTemp, tb/result_file.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace fm {

enum class WaveFormat { None, Vcd, Fst };

class WaveWriter {
 public:
  virtual ~WaveWriter() = default;
  // Opens `path`'s temporary file; throws ConfigError (bad input) naming `option` when
  // it cannot be created. `comment` goes into the file header.
  static std::unique_ptr<WaveWriter> open(WaveFormat f, const std::string& path,
                                          const std::string& option, const std::string& comment);

  virtual void push_scope(const std::string& name) = 0;
  virtual void pop_scope() = 0;
  // Declares a variable of `width` bits in the current scope; returns its handle (0, 1, ...).
  // A vector gets the range [width-1:0] (GTKWave then names it e.g. "vc[3:0]").
  virtual int add_var(const std::string& name, int width) = 0;
  virtual void end_declarations() = 0;
  // Starts timestamp t (strictly greater than the previous one).
  virtual void time(uint64_t t) = 0;
  // Value of variable `id` at the current timestamp.
  virtual void value(int id, uint64_t v) = 0;
  // A free-text note at the current timestamp (VCD: $comment; FST: a string variable
  // declared with add_text_var, if any).
  virtual void note(const std::string& text) = 0;
  // Finishes the file and renames it into place; throws WriteError (tb/result_file.h)
  // on an I/O error, with the temporary file removed.
  virtual void close() = 0;
  // Removes the temporary file (called by the destructor of an unclosed writer).
  virtual void abort() = 0;
};

}  // namespace fm
