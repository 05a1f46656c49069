#pragma once
// Finds the observations of a ledger's JSON text without parsing the whole document, so a
// large ledger can be checked and read an observation at a time (store/ledger_source).
// It only splits: each observation's bytes and the rest (the "header", with the array left
// empty) are parsed and validated by the caller, and a text it cannot split with certainty
// (no top-level "observations" array, two of them, an element that is not an object, a
// misplaced comma) is reported as unsupported, for the caller to read as one document.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace strata::model {

class LedgerScanner {
 public:
  struct Range {
    std::uint64_t begin = 0, end = 0;  // byte offsets in the whole text, end exclusive
  };
  // Called for each complete element of the top-level "observations" array, in order.
  explicit LedgerScanner(std::function<void(Range)> on_observation);

  // The next bytes of the text.
  void feed(std::string_view bytes);

  // After the last feed: whether the text split as expected (see above).
  bool finish() const;

  // The text without the observations: everything outside the array, and "[]" in its place.
  const std::string& header() const { return header_; }

  // Offset of the first byte a later observation can still need: the start of the element
  // being scanned, or the end of what was fed. The caller may drop earlier bytes.
  std::uint64_t needed_from() const { return in_element_ ? element_begin_ : offset_; }

 private:
  enum class Place { before_array, array_start, after_element, before_element, after_array };
  void step(char c);
  std::size_t skip_element(std::string_view bytes, std::size_t i);
  void outside_array(char c);
  void inside_array(char c);

  std::function<void(Range)> on_observation_;
  std::string header_;
  std::uint64_t offset_ = 0;  // of the next byte
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
  std::string last_key_;       // the last complete string at depth 1 (keys are short)
  bool key_too_long_ = false;  // of the string being captured
  bool after_colon_ = false;   // the last significant byte at depth 1 was ':' following last_key_
  Place place_ = Place::before_array;
  bool in_element_ = false;
  std::uint64_t element_begin_ = 0;
  bool unsupported_ = false;
};

}  // namespace strata::model
