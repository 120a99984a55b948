//===- SymbolicProof.h - Inequalities over sizes, for every size -*- C++
//-*-===//
//
// Part of memplan. IR-free: no MLIR types.
//
//===----------------------------------------------------------------------===//
//
// What memplan-verify-plan uses to prove a plan with run-time offsets valid
// for every size, not only at samples. Offsets, sizes and arena sizes are
// polynomials with integer coefficients over variables: the function's size
// symbols (non-negative, each with an optional upper bound) and atoms, the
// values a polynomial cannot express -- max(a, b, ...), a rounded up to a
// multiple of a power of two, max(a, 0), or an opaque value known only by
// its identity. The prover shows X >= Y by rewriting X - Y with the bounds
// each atom has (max(a, b) >= a, alignUp(a) >= a, max(a, 0) >= a and >= 0;
// upwards alignUp(a) <= a + alignment - 1) and each symbol's upper bound,
// until every coefficient is non-negative. It is sound and incomplete: "not
// proven" means no proof was found within the work bound, not a clash.
//
// Arithmetic is over the integers: a proof holds for every symbol value at
// which the program's 64-bit computations do not overflow.
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_PLANNING_SYMBOLICPROOF_H
#define MEMPLAN_PLANNING_SYMBOLICPROOF_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace mlir {
namespace memplan {
namespace proof {

/// A product of variables (ids, sorted, repeats for powers); empty for the
/// constant term. Inline storage: most have at most two factors.
using Monomial = llvm::SmallVector<unsigned, 3>;

/// A polynomial with int64 coefficients: its terms sorted by monomial, no
/// zero coefficient stored. Operations that would overflow a coefficient
/// leave `overflow` set.
struct Poly {
  std::vector<std::pair<Monomial, int64_t>> terms;
  bool overflow = false;

  static Poly constant(int64_t c);
  static Poly variable(unsigned id);
  bool isConstant() const;
  std::optional<int64_t> constantValue() const;

  Poly operator+(const Poly &other) const;
  Poly operator-(const Poly &other) const;
  Poly operator*(const Poly &other) const;
  Poly scaled(int64_t factor) const;
  bool operator==(const Poly &other) const {
    return terms == other.terms && overflow == other.overflow;
  }
  bool operator<(const Poly &other) const;
};

/// What an atom is. Its variable id is Prover::numSymbols() + its index.
struct Atom {
  enum Kind {
    /// max(args...), every argument non-negative.
    Max,
    /// args[0] rounded up to a multiple of `alignment` (a power of two).
    AlignUp,
    /// max(args[0], 0).
    ClampNonNegative,
    /// A value the prover knows nothing about, other than that two uses of
    /// the same one are equal (`key` tells them apart).
    Opaque,
  };
  Kind kind;
  std::vector<Poly> args;
  uint64_t alignment = 1;
  uint64_t key = 0;

  bool operator<(const Atom &other) const;
};

class Prover {
public:
  /// Symbols 0..bounds.size()-1, each non-negative and at most its bound
  /// when it has one. `workLimit` bounds all proofs together (units: terms
  /// visited); once it is spent, geq answers std::nullopt.
  Prover(std::vector<std::optional<uint64_t>> bounds, uint64_t workLimit);

  unsigned numSymbols() const { return static_cast<unsigned>(bounds.size()); }
  /// The variable of `atom` (the same id for an equal atom). An atom whose
  /// contract does not hold (a Max of arguments not proven non-negative, an
  /// alignment that is no power of two below 2^62) becomes a new opaque
  /// value instead.
  Poly atom(Atom atom);

  /// Whether x >= y for every admissible value of the symbols: true when
  /// proven, false when no proof was found, std::nullopt when the work
  /// bound ran out.
  std::optional<bool> geq(const Poly &x, const Poly &y);
  /// Whether `p` is non-negative for every admissible value (a proof).
  bool provedNonNegative(const Poly &p);
  /// A power of two that divides `p` at every value of the symbols (1 when
  /// nothing better is known; 2^62 for 0).
  uint64_t alignmentOf(const Poly &p) const;

  uint64_t workDone() const { return work; }

  bool exhausted() const { return work > workLimit; }

private:
  bool nonNegative(const Poly &d, unsigned depth);
  bool search(const Poly &d, unsigned depth);
  bool variableNonNegative(unsigned id);
  bool charge(uint64_t units);
  /// Whether variable `target` occurs in atom `from`'s arguments, at any
  /// depth (or is `from`).
  bool reaches(unsigned from, unsigned target);
  bool reaches(const Poly &p, unsigned target);
  const Atom *atomOf(unsigned id) const;

  std::vector<std::optional<uint64_t>> bounds;
  std::vector<Atom> atoms;
  std::map<Atom, unsigned> atomIds;
  std::vector<std::optional<bool>> atomNonNegative;
  /// Per target: what reaches() decided for the atoms above it.
  std::map<unsigned, std::map<unsigned, bool>> reach;
  std::vector<uint64_t> atomAlignment;
  /// States with no proof found, with the depth they were searched at,
  /// by hash.
  std::unordered_map<uint64_t, std::vector<std::pair<Poly, unsigned>>> failed;
  static uint64_t hashOf(const Poly &p);
  uint64_t work = 0, workLimit;
  uint64_t invalidAtoms = 0;
};

} // namespace proof
} // namespace memplan
} // namespace mlir

#endif // MEMPLAN_PLANNING_SYMBOLICPROOF_H
