// Compares a program's output with a reference output, token by token: numbers within a
// relative and absolute tolerance (float results drift a little between frameworks), every
// other token exactly. On the first differing line prints both versions and exits 1. Lines of
// EXPECTED that start with '#' are comments; trailing blank lines do not count.
// Usage: compare_output EXPECTED ACTUAL [--rtol R] [--atol A]   (defaults 1e-3 and 1e-5)
// Independent of ember: plain C++17.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Token {
  std::string text;
  bool numeric = false;
  double value = 0;
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Length of the number starting at s[i] ([-+]digits[.digits][e[-+]digits], or .digits), 0 if
// none. A number may not continue a word: the 1 of "fc1" or "conv2d" is part of the word.
size_t number_at(const std::string& s, size_t i) {
  if (i > 0 && (is_word_char(s[i - 1]) || s[i - 1] == '.')) return 0;
  size_t j = i;
  if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
  const size_t digits_start = j;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  size_t mantissa_digits = j - digits_start;
  if (j < s.size() && s[j] == '.') {
    size_t k = j + 1;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
    mantissa_digits += k - j - 1;
    if (k - j - 1 > 0 || mantissa_digits > 0) j = k;
  }
  if (mantissa_digits == 0) return 0;
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1;
    if (k < s.size() && (s[k] == '-' || s[k] == '+')) ++k;
    const size_t exp_start = k;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
    if (k > exp_start) j = k;
  }
  // "12abc" is a word, not a number followed by one.
  if (j < s.size() && is_word_char(s[j])) return 0;
  return j - i;
}

// Splits a line into numbers, words (letters, digits, _) and single punctuation characters;
// white space only separates.
std::vector<Token> tokenize(const std::string& line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (const size_t n = number_at(line, i)) {
      Token t;
      t.text = line.substr(i, n);
      t.numeric = true;
      t.value = std::strtod(t.text.c_str(), nullptr);
      tokens.push_back(t);
      i += n;
    } else if (is_word_char(c)) {
      size_t j = i;
      while (j < line.size() && is_word_char(line[j])) ++j;
      tokens.push_back({line.substr(i, j - i)});
      i = j;
    } else {
      tokens.push_back({std::string(1, c)});
      ++i;
    }
  }
  return tokens;
}

// skip_comments: lines starting with '#' are left out (the reference's provenance line).
bool read_lines(const char* path, std::vector<std::string>& lines, bool skip_comments) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (skip_comments && !line.empty() && line[0] == '#') continue;
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos) {
    lines.pop_back();
  }
  return true;
}

// Empty when the lines match, else why not.
std::string compare(const std::string& expected, const std::string& actual, double rtol,
                    double atol) {
  const auto a = tokenize(expected), b = tokenize(actual);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].numeric && b[i].numeric) {
      const double diff = std::fabs(a[i].value - b[i].value);
      if (!(diff <= atol + rtol * std::fabs(a[i].value))) {
        return "number " + b[i].text + " != " + a[i].text;
      }
    } else if (a[i].numeric != b[i].numeric || a[i].text != b[i].text) {
      return "token '" + b[i].text + "' != '" + a[i].text + "'";
    }
  }
  if (a.size() != b.size()) {
    return std::to_string(b.size()) + " tokens, expected " + std::to_string(a.size());
  }
  return {};
}

}  // namespace

int main(int argc, char* argv[]) {
  double rtol = 1e-3, atol = 1e-5;
  std::vector<const char*> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--rtol" || arg == "--atol") && i + 1 < argc) {
      (arg == "--rtol" ? rtol : atol) = std::atof(argv[++i]);
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.size() != 2) {
    std::cerr << "usage: compare_output EXPECTED ACTUAL [--rtol R] [--atol A]\n";
    return 2;
  }
  std::vector<std::string> expected, actual;
  for (int k = 0; k < 2; ++k) {
    if (!read_lines(files[k], k == 0 ? expected : actual, /*skip_comments=*/k == 0)) {
      std::cerr << "compare_output: cannot read " << files[k] << "\n";
      return 2;
    }
  }
  const size_t n = std::max(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string e = i < expected.size() ? expected[i] : "<end of output>";
    const std::string a = i < actual.size() ? actual[i] : "<end of output>";
    const std::string why =
        i < expected.size() && i < actual.size() ? compare(e, a, rtol, atol) : "missing line";
    if (!why.empty()) {
      std::cout << "outputs differ at line " << i + 1 << " (" << why << ", rtol " << rtol
                << ", atol " << atol << ")\n"
                << "  expected (" << files[0] << "):\n    " << e << "\n"
                << "  actual   (" << files[1] << "):\n    " << a << "\n";
      return 1;
    }
  }
  std::cout << "outputs match: " << actual.size() << " lines (rtol " << rtol << ", atol " << atol
            << ")\n";
  return 0;
}
