//===- RematMILP.cpp - Optimal rematerialization by MILP ------------------===//
//
// Part of memplan. IR-free: LLVM Support, and CBC when the build has it.
//
//===----------------------------------------------------------------------===//

#include "memplan/Planning/RematMILP.h"

#ifdef MEMPLAN_HAVE_CBC
#include "coin/Cbc_C_Interface.h"
#endif

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#ifdef __unix__
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace mlir::memplan;

#ifndef MEMPLAN_HAVE_CBC

bool mlir::memplan::rematMILPAvailable() { return false; }

RematMILPResult mlir::memplan::solveRematMILP(const RematGraph &, uint64_t,
                                              double, llvm::ArrayRef<size_t>,
                                              int64_t) {
  return RematMILPResult();
}

#else

bool mlir::memplan::rematMILPAvailable() { return true; }

namespace {
/// Builds the model column by column and row by row, then hands it to CBC's
/// C API in one column-major matrix (adding rows one at a time through the
/// API re-copies the matrix each time: 15 of the 21 s of a 5 s-limited
/// solve on the CNN toy graph's 34 782 rows).
class Formulation {
public:
  Formulation(const RematGraph &g, uint64_t budget) : g(g), n(g.nodes.size()) {
    model = Cbc_newModel();
    Cbc_setLogLevel(model, 0);
    readers.resize(n);
    inputs.resize(n);
    for (size_t v = 0; v < n; ++v) {
      std::vector<size_t> in = g.nodes[v].inputs;
      llvm::sort(in);
      in.erase(std::unique(in.begin(), in.end()), in.end());
      inputs[v] = in;
      for (size_t u : in)
        readers[u].push_back(v);
    }
    // Bytes in units of the budget keep the coefficients near 1; a budget
    // above every byte there is constrains nothing more than the total does
    // (tiny coefficients would fall below CBC's tolerances).
    uint64_t total = 0;
    for (const RematNode &node : g.nodes)
      total += node.bytes; // at most kMaxTotalBytes (validate())
    uint64_t unit = std::min(budget, std::max<uint64_t>(total, 1));
    scale = unit ? 1.0 / double(unit) : 1.0;
    capacity = unit ? 1.0 : 0.0;
    // Costs in units of the largest: CBC's objective stays near 1 too.
    for (const RematNode &node : g.nodes)
      costUnit = std::max(costUnit, node.cost);
    if (!(costUnit > 0))
      costUnit = 1;
    build();
    load();
  }
  ~Formulation() { Cbc_deleteModel(model); }

  size_t getColumns() const { return columns; }
  size_t getRows() const { return rows; }

  /// Solves in this process. The schedule is left for the caller to
  /// simulate.
  RematMILPResult solve(double seconds, int64_t nodes,
                        llvm::ArrayRef<size_t> start) {
    RematMILPResult out;
    out.variables = columns;
    out.constraints = rows;
    if (!start.empty())
      offerStart(start);
    Cbc_setMaximumSeconds(model, std::max(seconds, 0.01));
    if (nodes > 0)
      Cbc_setMaximumNodes(model, static_cast<int>(std::min<int64_t>(
                                     nodes, std::numeric_limits<int>::max())));
    Cbc_setParameter(model, "threads", "1");
    Cbc_solve(model);
    out.stoppedOnTime = Cbc_isSecondsLimitReached(model);
    double constant = 0;
    for (const RematNode &node : g.nodes)
      constant += node.cost;
    out.lowerBound = Cbc_getBestPossibleObjValue(model) * costUnit + constant;
    bool proven = Cbc_isProvenOptimal(model);
    const double *x = Cbc_numberSavedSolutions(model) > 0 || proven
                          ? Cbc_getColSolution(model)
                          : nullptr;
    if (Cbc_isProvenInfeasible(model)) {
      out.status = RematMILPResult::Status::Infeasible;
      return out;
    }
    if (!x) {
      out.status = RematMILPResult::Status::NoSolution;
      return out;
    }
    for (size_t t = 0; t < n; ++t) {
      for (auto [i, col] : R[t])
        if (x[col] > 0.5)
          out.schedule.push_back(i);
      out.schedule.push_back(t);
    }
    out.status = proven ? RematMILPResult::Status::Optimal
                        : RematMILPResult::Status::Feasible;
    return out;
  }

private:
  int addColumn(const std::string &name, double ub, double cost, bool integer) {
    colNames.push_back(name);
    colUpper.push_back(ub);
    colCost.push_back(cost);
    colInteger.push_back(integer);
    colEntries.emplace_back();
    return int(columns++);
  }
  void addRow(llvm::ArrayRef<int> cols, llvm::ArrayRef<double> coefs,
              char sense, double rhs) {
    constexpr double inf = std::numeric_limits<double>::max();
    for (auto [col, coef] : llvm::zip(cols, coefs))
      colEntries[col].push_back({int(rows), coef});
    rowLower.push_back(sense == 'L' ? -inf : rhs);
    rowUpper.push_back(sense == 'G' ? inf : rhs);
    ++rows;
  }
  /// Hands the columns and rows gathered by build() to CBC.
  void load() {
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value;
    for (auto &entries : colEntries) {
      // Entries are in row order (rows are numbered as added); a column
      // listed twice in one row gets the sum of its coefficients.
      for (auto [row, coef] : entries) {
        if (!index.empty() && size_t(start.back()) < index.size() &&
            index.back() == row) {
          value.back() += coef;
          continue;
        }
        index.push_back(row);
        value.push_back(coef);
      }
      start.push_back(CoinBigIndex(index.size()));
    }
    std::vector<double> colLower(columns, 0.0);
    Cbc_loadProblem(model, int(columns), int(rows), start.data(), index.data(),
                    value.data(), colLower.data(), colUpper.data(),
                    colCost.data(), rowLower.data(), rowUpper.data());
    for (size_t j = 0; j < columns; ++j) {
      Cbc_setColName(model, int(j), colNames[j].c_str());
      if (colInteger[j])
        Cbc_setInteger(model, int(j));
    }
    colEntries.clear();
  }
  /// Column of R[t][i] (i < t), or -1 when i never runs in stage t.
  int rCol(size_t t, size_t i) const {
    auto it = llvm::find_if(R[t], [&](auto &p) { return p.first == i; });
    return it == R[t].end() ? -1 : it->second;
  }
  int sCol(size_t t, size_t i) const {
    if (t >= n)
      return -1;
    auto it = S[t].find(i);
    return it == S[t].end() ? -1 : it->second;
  }

  void build() {
    R.resize(n);
    S.resize(n);
    // R[t][i]: forward i < t. S[t][i]: i < t read by some node >= t.
    for (size_t t = 0; t < n; ++t)
      for (size_t i = 0; i < t; ++i) {
        if (!g.nodes[i].backward)
          R[t].push_back(
              {i, addColumn("R_" + std::to_string(t) + "_" + std::to_string(i),
                            1, g.nodes[i].cost / costUnit, true)});
        if (!readers[i].empty() && readers[i].back() >= t)
          S[t][i] = addColumn(
              "S_" + std::to_string(t) + "_" + std::to_string(i), 1, 0, true);
      }
    for (size_t t = 0; t < n; ++t)
      buildStage(t);
  }

  void buildStage(size_t t) {
    // Executions of the stage in order: (node, column of R or -1 for t).
    std::vector<std::pair<size_t, int>> steps(R[t].begin(), R[t].end());
    steps.push_back({t, -1});
    // Inputs present: R[t][k] <= R[t][i] + S[t][i].
    for (auto [k, rk] : steps)
      for (size_t i : inputs[k]) {
        llvm::SmallVector<int, 3> cols;
        llvm::SmallVector<double, 3> coefs;
        double rhs = 0;
        if (rk >= 0) {
          cols.push_back(rk);
          coefs.push_back(1);
        } else {
          rhs = -1;
        }
        if (int c = rCol(t, i); c >= 0) {
          cols.push_back(c);
          coefs.push_back(-1);
        }
        if (int c = sCol(t, i); c >= 0) {
          cols.push_back(c);
          coefs.push_back(-1);
        }
        addRow(cols, coefs, 'L', rhs);
      }
    // Kept only if resident: S[t+1][i] <= S[t][i] + R[t][i].
    if (t + 1 < n)
      for (auto [i, col] : S[t + 1]) {
        if (i == t)
          continue;
        llvm::SmallVector<int, 3> cols{col};
        llvm::SmallVector<double, 3> coefs{1};
        if (int c = sCol(t, i); c >= 0) {
          cols.push_back(c);
          coefs.push_back(-1);
        }
        if (int c = rCol(t, i); c >= 0) {
          cols.push_back(c);
          coefs.push_back(-1);
        }
        addRow(cols, coefs, 'L', 0);
      }
    // Memory along the stage.
    int previousU = -1;
    std::vector<std::pair<int, double>> previousFrees;
    std::string stage = std::to_string(t);
    for (auto [pos, step] : llvm::enumerate(steps)) {
      auto [k, rk] = step;
      int u =
          addColumn("U_" + stage + "_" + std::to_string(k), capacity, 0, false);
      // U = [previous U - frees | kept] + bytes(k) R[t][k].
      llvm::SmallVector<int> cols{u};
      llvm::SmallVector<double> coefs{1};
      double rhs = 0;
      if (previousU < 0) {
        for (auto [i, col] : S[t]) {
          cols.push_back(col);
          coefs.push_back(-bytes(i));
        }
      } else {
        cols.push_back(previousU);
        coefs.push_back(-1);
        for (auto [col, b] : previousFrees) {
          cols.push_back(col);
          coefs.push_back(b);
        }
      }
      if (rk >= 0) {
        cols.push_back(rk);
        coefs.push_back(-bytes(k));
      } else {
        rhs = bytes(k);
      }
      addRow(cols, coefs, 'E', rhs);
      previousU = u;
      previousFrees.clear();
      if (pos + 1 == steps.size())
        break; // nothing runs after t in this stage
      // Frees after k: its inputs and itself.
      llvm::SmallVector<size_t> candidates(inputs[k].begin(), inputs[k].end());
      candidates.push_back(k);
      for (size_t i : candidates) {
        // A reader of i later in the stage forbids the free; node t
        // always runs, so a reader t makes it impossible.
        llvm::SmallVector<int> laterReaders;
        bool impossible = false;
        for (size_t j : readers[i]) {
          if (j <= k || j > t)
            continue;
          if (j == t) {
            impossible = true;
            break;
          }
          if (int c = rCol(t, j); c >= 0)
            laterReaders.push_back(c);
        }
        if (impossible)
          continue;
        int f = addColumn("F_" + stage + "_" + std::to_string(i) + "_" +
                              std::to_string(k),
                          1, 0, false);
        if (rk >= 0)
          addRow({f, rk}, {1, -1}, 'L', 0);
        if (int c = sCol(t + 1, i); c >= 0)
          addRow({f, c}, {1, 1}, 'L', 1);
        for (int c : laterReaders)
          addRow({f, c}, {1, 1}, 'L', 1);
        previousFrees.push_back({f, bytes(i)});
      }
    }
  }

  /// Offers `schedule` (each stage reordered by index) as the first
  /// incumbent; CBC completes the continuous columns and drops it if it
  /// does not fit.
  void offerStart(llvm::ArrayRef<size_t> schedule) {
    // Stage t ends with the first execution of node t.
    std::vector<std::vector<size_t>> stages(n);
    std::vector<uint8_t> ran(n, 0);
    size_t t = 0;
    for (size_t v : schedule) {
      if (!ran[v]) {
        if (v != t)
          return; // not a stage-ordered schedule
        ran[v] = 1;
        ++t;
        continue;
      }
      if (t >= n)
        return;
      stages[t].push_back(v);
    }
    std::vector<size_t> ordered;
    std::vector<std::pair<std::string, double>> values;
    for (size_t s = 0; s < n; ++s) {
      llvm::sort(stages[s]);
      if (std::adjacent_find(stages[s].begin(), stages[s].end()) !=
          stages[s].end())
        return; // the same node twice in one stage
      for (size_t i : stages[s]) {
        if (rCol(s, i) < 0)
          return;
        values.push_back(
            {"R_" + std::to_string(s) + "_" + std::to_string(i), 1});
        ordered.push_back(i);
      }
      ordered.push_back(s);
    }
    // S[t][i]: the instance of i alive when stage t begins is read later.
    std::vector<int64_t> latest(n, -1);
    std::vector<size_t> end(ordered.size()), stageOf(ordered.size());
    std::vector<size_t> stageStart(n);
    for (size_t q = 0, s = 0; q < ordered.size(); ++q) {
      stageOf[q] = s;
      end[q] = q;
      for (size_t u : inputs[ordered[q]])
        end[latest[u]] = q;
      latest[ordered[q]] = q;
      if (ordered[q] == s)
        ++s;
    }
    for (size_t q = ordered.size(); q-- > 0;)
      stageStart[stageOf[q]] = q;
    for (size_t p = 0; p < ordered.size(); ++p)
      for (size_t s = stageOf[p] + 1; s < n && stageStart[s] <= end[p]; ++s)
        if (sCol(s, ordered[p]) >= 0)
          values.push_back(
              {"S_" + std::to_string(s) + "_" + std::to_string(ordered[p]), 1});
    std::vector<const char *> names;
    std::vector<double> xs;
    for (auto &[name, value] : values) {
      names.push_back(name.c_str());
      xs.push_back(value);
    }
    Cbc_setMIPStart(model, int(names.size()), names.data(), xs.data());
  }

  double bytes(size_t i) const { return double(g.nodes[i].bytes) * scale; }

  const RematGraph &g;
  size_t n;
  Cbc_Model *model = nullptr;
  std::vector<std::vector<size_t>> readers, inputs;
  std::vector<std::vector<std::pair<size_t, int>>> R;
  std::vector<llvm::DenseMap<size_t, int>> S;
  double scale = 1, capacity = 0, costUnit = 0;
  size_t columns = 0, rows = 0;
  // The model until load(): per column its name, bounds, cost and (row,
  // coefficient) entries; per row its bounds.
  std::vector<std::string> colNames;
  std::vector<double> colUpper, colCost, rowLower, rowUpper;
  std::vector<uint8_t> colInteger;
  std::vector<std::vector<std::pair<int, double>>> colEntries;
};
} // namespace

#ifdef __unix__
/// The result crosses the pipe as: status, lower bound, schedule length,
/// schedule (host byte order: the same binary on both ends).
static void writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      ::_exit(3);
    p += n;
    size -= size_t(n);
  }
}

/// Runs `formulation.solve` in a child process; the child is killed when it
/// outlives `hardSeconds`. Sets `note` and returns std::nullopt when the
/// solve did not come back.
static std::optional<RematMILPResult>
solveInChild(Formulation &formulation, double seconds, int64_t nodes,
             double hardSeconds, llvm::ArrayRef<size_t> start,
             std::string &note, bool &killedOnTime,
             llvm::function_ref<void(double)> progress) {
  int fds[2];
  if (::pipe(fds) != 0)
    return formulation.solve(seconds, nodes, start); // no isolation possible
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return formulation.solve(seconds, nodes, start);
  }
  if (pid == 0) {
    // The child: quiet (CBC's messages and abort texts go nowhere), default
    // signal dispositions (no crash reporter of the parent's).
    ::close(fds[0]);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      ::signal(sig, SIG_DFL);
    RematMILPResult r = formulation.solve(seconds, nodes, start);
    int32_t status = int32_t(r.status);
    int32_t onTime = r.stoppedOnTime;
    uint64_t length = r.schedule.size();
    writeAll(fds[1], &status, sizeof(status));
    writeAll(fds[1], &onTime, sizeof(onTime));
    writeAll(fds[1], &r.lowerBound, sizeof(r.lowerBound));
    writeAll(fds[1], &length, sizeof(length));
    std::vector<uint64_t> schedule(r.schedule.begin(), r.schedule.end());
    writeAll(fds[1], schedule.data(), schedule.size() * sizeof(uint64_t));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string bytes;
  auto started = std::chrono::steady_clock::now();
  auto deadline =
      started + std::chrono::microseconds(int64_t(hardSeconds * 1e6));
  auto lastProgress = started;
  bool timedOut = false;
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    // The caller's progress report, at most once a second (it only prints).
    if (progress && now - lastProgress >= std::chrono::seconds(1)) {
      lastProgress = now;
      progress(std::chrono::duration<double>(now - started).count());
    }
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
            .count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, int(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      break;
    if (ready == 0)
      continue;
    char buffer[65536];
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; // EOF: the child is done (or died)
    bytes.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  if (timedOut)
    ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    killedOnTime = true;
    note = "CBC overran the time limit and was stopped";
    return std::nullopt;
  }
  if (WIFSIGNALED(wstatus)) {
    note = "CBC crashed (signal " + std::to_string(WTERMSIG(wstatus)) + ")";
    return std::nullopt;
  }
  const size_t header = 2 * sizeof(int32_t) + sizeof(double) + sizeof(uint64_t);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 ||
      bytes.size() < header) {
    note = "CBC's process ended without an answer";
    return std::nullopt;
  }
  RematMILPResult r;
  int32_t status, onTime;
  uint64_t length;
  std::memcpy(&status, bytes.data(), sizeof(status));
  std::memcpy(&onTime, bytes.data() + sizeof(status), sizeof(onTime));
  std::memcpy(&r.lowerBound, bytes.data() + 2 * sizeof(int32_t),
              sizeof(r.lowerBound));
  std::memcpy(&length, bytes.data() + 2 * sizeof(int32_t) + sizeof(double),
              sizeof(length));
  r.stoppedOnTime = onTime != 0;
  if (status < 0 || status > int32_t(RematMILPResult::Status::Unavailable) ||
      length > (bytes.size() - header) / sizeof(uint64_t) ||
      bytes.size() != header + length * sizeof(uint64_t)) {
    note = "CBC's process sent a malformed answer";
    return std::nullopt;
  }
  r.status = RematMILPResult::Status(status);
  r.schedule.resize(length);
  for (uint64_t k = 0; k < length; ++k) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + header + k * sizeof(uint64_t), sizeof(v));
    r.schedule[k] = size_t(v);
  }
  return r;
}
#endif

RematMILPResult
mlir::memplan::solveRematMILP(const RematGraph &graph, uint64_t budget,
                              double timeLimitSeconds,
                              llvm::ArrayRef<size_t> start, int64_t nodeLimit,
                              llvm::function_ref<void(double)> progress) {
  using Status = RematMILPResult::Status;
  // A start that recomputes nothing and fits is optimal: nothing costs less
  // than running every node once.
  std::optional<RematCost> startCost;
  if (!start.empty())
    startCost = simulateSchedule(graph, start);
  bool startFits = startCost && startCost->peak <= budget;
  if (startFits && startCost->cost <= graph.totalCost()) {
    RematMILPResult out;
    out.status = Status::Optimal;
    out.schedule.assign(start.begin(), start.end());
    out.result = *startCost;
    out.lowerBound = startCost->cost;
    return out;
  }
  Formulation formulation(graph, budget);
  std::string note;
  std::optional<RematMILPResult> solved;
  bool killedOnTime = false;
#ifdef __unix__
  solved = solveInChild(formulation, timeLimitSeconds, nodeLimit,
                        1.05 * timeLimitSeconds + 0.5, start, note,
                        killedOnTime, progress);
#else
  solved = formulation.solve(timeLimitSeconds, nodeLimit, start);
#endif
  RematMILPResult out;
  if (solved)
    out = std::move(*solved);
  out.variables = formulation.getColumns();
  out.constraints = formulation.getRows();
  out.note = note;
  out.stoppedOnTime |= killedOnTime;
  // An "infeasible" claim the start refutes, or no answer at all: the start
  // (valid, fitting, unproven) when there is one.
  bool refuted = solved && out.status == Status::Infeasible && startFits;
  if (refuted)
    out.note = "CBC claimed the budget infeasible, but the start schedule "
               "fits it (numerical trouble): the claim is dropped";
  if (!solved || refuted) {
    if (startFits) {
      out.status = Status::Feasible;
      out.schedule.assign(start.begin(), start.end());
    } else {
      out.status = solved ? Status::NoSolution : Status::Failed;
      out.schedule.clear();
    }
  }
  if (out.status == Status::Optimal || out.status == Status::Feasible) {
    if (std::optional<std::string> error = checkSchedule(graph, out.schedule)) {
      out.note = "CBC's schedule is invalid (" + *error + ")";
      out.status = Status::Failed;
    } else if ((out.result = simulateSchedule(graph, out.schedule)).peak >
               budget) {
      // Within CBC's tolerances, not within the budget.
      out.note = "CBC's schedule peaks at " + std::to_string(out.result.peak) +
                 " bytes, over the budget (numerical tolerance)";
      out.status = Status::Failed;
    }
    if (out.status == Status::Failed && startFits) {
      out.status = Status::Feasible;
      out.schedule.assign(start.begin(), start.end());
      out.result = *startCost;
    }
    if (out.status == Status::Failed)
      out.schedule.clear();
    if (out.status == Status::Optimal)
      out.lowerBound = out.result.cost;
  }
  return out;
}

#endif
