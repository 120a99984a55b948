//===- SymbolicProof.cpp - Inequalities over sizes, for every size --------===//
//
// Part of memplan. See SymbolicProof.h.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/SymbolicProof.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace mlir::memplan::proof;

namespace {
bool addOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_add_overflow(a, b, &out);
}
bool mulOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}

/// Adds c * m to `p` (terms stay sorted by monomial).
void addTerm(Poly &p, const Monomial &m, int64_t c) {
  if (c == 0)
    return;
  auto it = std::lower_bound(p.terms.begin(), p.terms.end(), m,
                             [](const std::pair<Monomial, int64_t> &t,
                                const Monomial &key) { return t.first < key; });
  if (it == p.terms.end() || it->first != m) {
    p.terms.insert(it, {m, c});
    return;
  }
  int64_t sum;
  if (addOverflows(it->second, c, sum)) {
    p.overflow = true;
    return;
  }
  if (sum == 0)
    p.terms.erase(it);
  else
    it->second = sum;
}

Monomial multiply(const Monomial &a, const Monomial &b) {
  Monomial m;
  m.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(m));
  return m;
}

/// The deepest rewrite chain tried for one inequality: a constant, so the
/// search's recursion is bounded whatever the input (about 0.5 KB of stack
/// a level; a ResNet-like step with a dynamic batch needed 85). A plan
/// whose proof needs more is checked by samples only.
constexpr unsigned kMaxDepth = 512;
/// The alignment of 0.
constexpr uint64_t kZeroAlignment = uint64_t(1) << 62;

uint64_t powerOfTwoFactor(int64_t c) {
  if (c == 0)
    return kZeroAlignment;
  uint64_t u = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
  return std::min<uint64_t>(u & (~u + 1), kZeroAlignment);
}
} // namespace

Poly Poly::constant(int64_t c) {
  Poly p;
  addTerm(p, {}, c);
  return p;
}

Poly Poly::variable(unsigned id) {
  Poly p;
  p.terms.push_back({Monomial{id}, 1});
  return p;
}

bool Poly::isConstant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}

std::optional<int64_t> Poly::constantValue() const {
  if (overflow || !isConstant())
    return std::nullopt;
  return terms.empty() ? 0 : terms.begin()->second;
}

Poly Poly::operator+(const Poly &other) const {
  Poly r = *this;
  r.overflow |= other.overflow;
  for (const auto &[m, c] : other.terms)
    addTerm(r, m, c);
  return r;
}

Poly Poly::scaled(int64_t factor) const {
  Poly r;
  r.overflow = overflow;
  for (const auto &[m, c] : terms) {
    int64_t v;
    if (mulOverflows(c, factor, v))
      r.overflow = true;
    else
      addTerm(r, m, v);
  }
  return r;
}

Poly Poly::operator-(const Poly &other) const {
  return *this + other.scaled(-1);
}

Poly Poly::operator*(const Poly &other) const {
  Poly r;
  r.overflow = overflow || other.overflow;
  for (const auto &[ma, ca] : terms)
    for (const auto &[mb, cb] : other.terms) {
      int64_t v;
      if (mulOverflows(ca, cb, v))
        r.overflow = true;
      else
        addTerm(r, multiply(ma, mb), v);
    }
  return r;
}

bool Poly::operator<(const Poly &other) const {
  return std::tie(overflow, terms) < std::tie(other.overflow, other.terms);
}

bool Atom::operator<(const Atom &other) const {
  return std::tie(kind, alignment, key, args) <
         std::tie(other.kind, other.alignment, other.key, other.args);
}

Prover::Prover(std::vector<std::optional<uint64_t>> bounds, uint64_t workLimit)
    : bounds(std::move(bounds)), workLimit(workLimit) {}

Poly Prover::atom(Atom a) {
  // An atom whose bounds would not hold becomes an unknown value of its own
  // (keys from the top of the range, apart from the callers'): a maximum
  // of arguments not all proven non-negative, a rounding to no power of
  // two, a clamp or rounding without its one argument.
  bool valid = true;
  switch (a.kind) {
  case Atom::Max:
    valid = !a.args.empty();
    for (const Poly &arg : a.args)
      valid = valid && provedNonNegative(arg);
    break;
  case Atom::AlignUp:
    valid = a.args.size() == 1 && a.alignment != 0 &&
            (a.alignment & (a.alignment - 1)) == 0 &&
            a.alignment < kZeroAlignment;
    break;
  case Atom::ClampNonNegative:
    valid = a.args.size() == 1;
    break;
  case Atom::Opaque:
    break;
  }
  if (!valid)
    a = Atom{Atom::Opaque, {}, 1, ~uint64_t(0) - invalidAtoms++};
  // Rounding up what is already a multiple: the value itself.
  if (a.kind == Atom::AlignUp && alignmentOf(a.args.front()) >= a.alignment)
    return a.args.front();
  // The maximum of equal values, or of one value: that value.
  if (a.kind == Atom::Max) {
    std::sort(a.args.begin(), a.args.end());
    a.args.erase(std::unique(a.args.begin(), a.args.end()), a.args.end());
    if (a.args.size() == 1)
      return a.args.front();
  }
  auto it = atomIds.find(a);
  if (it != atomIds.end())
    return Poly::variable(it->second);
  unsigned id = numSymbols() + static_cast<unsigned>(atoms.size());
  atoms.push_back(a);
  atomNonNegative.push_back(std::nullopt);
  // What divides the atom's value whatever the symbols are.
  uint64_t alignment = 1;
  switch (a.kind) {
  case Atom::AlignUp:
    alignment = std::max(a.alignment, alignmentOf(a.args.front()));
    break;
  case Atom::Max:
  case Atom::ClampNonNegative: {
    alignment = kZeroAlignment; // max(x, 0): 0 is divisible by anything
    for (const Poly &arg : a.args)
      alignment = std::min(alignment, alignmentOf(arg));
    break;
  }
  case Atom::Opaque:
    break;
  }
  atomAlignment.push_back(alignment);
  atomIds.emplace(std::move(a), id);
  return Poly::variable(id);
}

uint64_t Prover::alignmentOf(const Poly &p) const {
  if (p.overflow)
    return 1;
  uint64_t alignment = kZeroAlignment;
  for (const auto &[m, c] : p.terms) {
    uint64_t term = powerOfTwoFactor(c);
    for (unsigned v : m) {
      uint64_t factor = v < numSymbols() ? 1 : atomAlignment[v - numSymbols()];
      // Powers of two: the product's, capped.
      term = term >= kZeroAlignment / factor ? kZeroAlignment : term * factor;
    }
    alignment = std::min(alignment, term);
  }
  return alignment;
}

const Atom *Prover::atomOf(unsigned id) const {
  if (id < numSymbols())
    return nullptr;
  return &atoms[id - numSymbols()];
}

bool Prover::charge(uint64_t units) {
  work += units;
  return work <= workLimit;
}

bool Prover::variableNonNegative(unsigned id) {
  const Atom *a = atomOf(id);
  if (!a)
    return true; // a size symbol
  std::optional<bool> &known = atomNonNegative[id - numSymbols()];
  if (known)
    return *known;
  bool result = false;
  switch (a->kind) {
  case Atom::Max:
  case Atom::ClampNonNegative:
    result = true;
    break;
  case Atom::AlignUp:
    // Proofs add no atoms: `a` stays valid.
    result = nonNegative(a->args.front(), kMaxDepth);
    break;
  case Atom::Opaque:
    result = false;
    break;
  }
  atomNonNegative[id - numSymbols()] = result;
  return result;
}

bool Prover::provedNonNegative(const Poly &p) {
  return nonNegative(p, kMaxDepth);
}

std::optional<bool> Prover::geq(const Poly &x, const Poly &y) {
  if (exhausted())
    return std::nullopt;
  bool proven = nonNegative(x - y, kMaxDepth);
  if (!proven && exhausted())
    return std::nullopt;
  return proven;
}

namespace {
/// How many times `v` occurs in `m`.
unsigned occurrences(const Monomial &m, unsigned v) {
  return static_cast<unsigned>(std::count(m.begin(), m.end(), v));
}
Monomial without(const Monomial &m, unsigned v) {
  Monomial r = m;
  r.erase(std::find(r.begin(), r.end(), v));
  return r;
}
} // namespace

bool Prover::reaches(unsigned from, unsigned target) {
  if (from == target)
    return true;
  // Arguments are made before their atom: nothing below the target's id
  // can reach it.
  if (from < numSymbols() || from < target)
    return false;
  std::map<unsigned, bool> &known = reach[target];
  auto it = known.find(from);
  if (it != known.end())
    return it->second;
  // Post-order over the atoms above the target (an explicit stack): a node
  // is decided once its arguments are.
  std::vector<unsigned> stack{from};
  while (!stack.empty()) {
    unsigned top = stack.back();
    if (known.count(top)) {
      stack.pop_back();
      continue;
    }
    charge(1);
    bool found = false, pending = false;
    for (const Poly &arg : atoms[top - numSymbols()].args)
      for (const auto &[m, c] : arg.terms)
        for (unsigned v : m) {
          if (v == target) {
            found = true;
            continue;
          }
          if (v < numSymbols() || v < target)
            continue;
          auto sub = known.find(v);
          if (sub == known.end()) {
            stack.push_back(v);
            pending = true;
          } else {
            found |= sub->second;
          }
        }
    if (pending && !found)
      continue;
    known[top] = found;
    stack.pop_back();
  }
  return known[from];
}

bool Prover::reaches(const Poly &p, unsigned target) {
  for (const auto &[m, c] : p.terms)
    for (unsigned v : m)
      if (reaches(v, target))
        return true;
  return false;
}

uint64_t Prover::hashOf(const Poly &p) {
  // FNV-1a over the monomials and coefficients (deterministic).
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  mix(p.overflow);
  for (const auto &[m, c] : p.terms) {
    mix(m.size());
    for (unsigned v : m)
      mix(v);
    mix(static_cast<uint64_t>(c));
  }
  return h;
}

bool Prover::nonNegative(const Poly &d, unsigned depth) {
  if (d.overflow || !charge(d.terms.size() + 1))
    return false;
  // A state already shown hopeless at this depth or deeper (by hash, then
  // by equality).
  uint64_t h = hashOf(d);
  auto bucket = failed.find(h);
  if (bucket != failed.end())
    for (const auto &[state, worst] : bucket->second)
      if (worst >= depth && state == d)
        return false;
  bool proven = search(d, depth);
  if (!proven && !exhausted()) {
    std::vector<std::pair<Poly, unsigned>> &states = failed[h];
    auto same = std::find_if(states.begin(), states.end(),
                             [&](const auto &s) { return s.first == d; });
    if (same == states.end()) {
      states.push_back({d, depth});
      charge(d.terms.size()); // what the memo holds counts as work too
    } else {
      same->second = std::max(same->second, depth);
    }
  }
  return proven;
}

bool Prover::search(const Poly &d, unsigned depth) {
  // Every term non-negative: done.
  auto cofactorNonNegative = [&](const Monomial &m, unsigned skip) {
    for (unsigned v : m)
      if (v != skip && !variableNonNegative(v))
        return false;
    return true;
  };
  bool done = true;
  for (const auto &[m, c] : d.terms)
    if (c < 0 || !cofactorNonNegative(m, ~0u)) {
      done = false;
      break;
    }
  if (done)
    return true;
  if (depth == 0)
    return false;

  // Rewrites of `v` in the terms whose coefficient has `sign`, where `v`
  // occurs once with a non-negative cofactor: v -> replacement.
  auto rewrite = [&](unsigned v, int sign, const Poly &replacement,
                     bool &changed) {
    Poly r;
    changed = false;
    for (const auto &[m, c] : d.terms) {
      if ((c > 0) == (sign > 0) && occurrences(m, v) == 1 &&
          cofactorNonNegative(m, v)) {
        Poly rest;
        rest.terms.push_back({without(m, v), c});
        r = r + replacement * rest;
        changed = true;
      } else {
        addTerm(r, m, c);
      }
    }
    return r;
  };

  auto hasAtom = [&](const Monomial &m) {
    return llvm::any_of(m, [&](unsigned v) { return atomOf(v) != nullptr; });
  };
  // The atom to cancel: the largest atom in a negative term (an offset
  // below this one, usually).
  std::optional<unsigned> target;
  for (const auto &[m, c] : d.terms)
    for (unsigned v : m)
      if (c < 0 && atomOf(v) && (!target || v > *target))
        target = v;
  // With an atom to cancel, the non-negative terms that cannot reach it do
  // not help: they are dropped (sound: D >= what is left). That keeps the
  // states along different paths down to the target equal, so the memo of
  // failed states cuts the search.
  if (target) {
    Poly kept;
    bool dropped = false;
    for (const auto &[m, c] : d.terms) {
      bool useful =
          c < 0 || !cofactorNonNegative(m, ~0u) ||
          llvm::any_of(m, [&](unsigned v) { return reaches(v, *target); });
      if (useful || !hasAtom(m))
        addTerm(kept, m, c);
      else
        dropped = true;
    }
    if (dropped)
      return nonNegative(kept, depth);
    if (exhausted())
      return false;
  }
  // Nothing to cancel but terms of symbols: one atom's lower bounds must
  // cover them. The other atom terms are non-negative and can be dropped,
  // so each positive atom is tried alone with the symbol terms (a much
  // smaller state than all of them together), the largest first.
  if (!target) {
    Poly symbolTerms;
    std::vector<std::pair<unsigned, int64_t>> single;
    bool droppable = true;
    for (const auto &[m, c] : d.terms) {
      if (!hasAtom(m)) {
        addTerm(symbolTerms, m, c);
        continue;
      }
      if (c < 0 || !cofactorNonNegative(m, ~0u))
        droppable = false;
      else if (m.size() == 1 && atomOf(m.front())->kind != Atom::Opaque)
        single.push_back({m.front(), c});
    }
    if (droppable && single.size() > 1) {
      std::sort(single.begin(), single.end(),
                [](auto a, auto b) { return a.first > b.first; });
      for (auto [v, c] : single) {
        Poly alone = symbolTerms;
        addTerm(alone, {v}, c);
        if (nonNegative(alone, depth - 1))
          return true;
        if (exhausted())
          return false;
      }
      return false;
    }
  }
  // The largest atom in a positive term that can reach the target through
  // lower bounds (outermost first: atoms are made after their arguments);
  // without a target, the largest positive atom. Its lower bounds are tried
  // in turn, those that cannot reach the target skipped. Then an upper
  // bound for the largest variable in a negative term.
  std::optional<unsigned> positive, negative;
  for (const auto &[m, c] : d.terms)
    for (unsigned v : m) {
      const Atom *a = atomOf(v);
      if (c > 0 && a && a->kind != Atom::Opaque &&
          (!positive || v > *positive) && (!target || reaches(v, *target)))
        positive = v;
      if (c < 0 && (!negative || v > *negative) &&
          (a ? a->kind != Atom::Opaque : bounds[v].has_value()))
        negative = v;
    }
  if (exhausted())
    return false;
  if (positive) {
    const Atom &a = *atomOf(*positive);
    std::vector<Poly> lower;
    switch (a.kind) {
    case Atom::Max:
      lower = a.args;
      break;
    case Atom::AlignUp:
      lower = {a.args.front()};
      break;
    case Atom::ClampNonNegative:
      lower = {a.args.front(), Poly()};
      break;
    case Atom::Opaque:
      break;
    }
    for (const Poly &bound : lower) {
      if (target && !reaches(bound, *target))
        continue;
      bool changed;
      Poly next = rewrite(*positive, +1, bound, changed);
      if (changed && nonNegative(next, depth - 1))
        return true;
      if (exhausted())
        return false;
    }
  }
  if (negative) {
    std::optional<Poly> upper;
    if (const Atom *a = atomOf(*negative)) {
      switch (a->kind) {
      case Atom::AlignUp:
        upper = a->args.front() +
                Poly::constant(static_cast<int64_t>(a->alignment - 1));
        break;
      case Atom::Max:
        // max(a, b) <= a + b holds, but trading an offset for the sum of
        // what lies below it only grows the search: no upper bound.
        break;
      case Atom::ClampNonNegative:
        if (nonNegative(a->args.front(), depth - 1))
          upper = a->args.front();
        break;
      case Atom::Opaque:
        break;
      }
    } else if (bounds[*negative] && *bounds[*negative] <= uint64_t(INT64_MAX)) {
      upper = Poly::constant(static_cast<int64_t>(*bounds[*negative]));
    }
    if (upper) {
      bool changed;
      Poly next = rewrite(*negative, -1, *upper, changed);
      if (changed && nonNegative(next, depth - 1))
        return true;
    }
  }
  return false;
}
