#include "analysis/pairing/layer_pairing.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/pairing/layer_matching.h"
#include "analysis/pairing/weight_evidence.h"
#include "core/stop_token.h"

namespace ql::analysis::pairing {

namespace {

// A quantized weight correlates with its float weight far above this; two different layers'
// weights almost never do (trained weights are not copies of each other).
constexpr double kWeightEvidence = 0.99;

bool isFoldTarget(const std::string &op) {
    return op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul";
}

bool isPlumbing(const std::string &op) {
    return op == "QuantizeLinear" || op == "DequantizeLinear" || op == "Identity" || op == "Cast";
}

// Gemm and MatMul are the same layer to an exporter that picks either.
std::string weightFamily(const std::string &op) {
    return op == "Gemm" ? "MatMul" : op;
}

// Where a value comes from, in pair terms: a graph input, a paired unit, a constant, or a layer
// without a partner (which blocks structural matching downstream of it).
struct Origin {
    enum Kind { Input, Paired, Constant, Blocked } kind = Constant;
    int id = 0;         // input position, or the float unit of the pair
    std::string block;  // the node without a partner
};

// One graph's side of the pairing.
struct Side {
    const GraphLayers *layers = nullptr;
    std::vector<int> unitOfNode;                         // node index -> unit index, or -1
    std::vector<std::optional<WeightEvidence>> weights;  // per unit
    std::vector<int> partner;                            // unit -> other side's unit, or -1
    std::vector<int> position;                           // unit -> canonical position
    std::map<std::string, int> inputPosition;
    std::unordered_map<std::string, int> producer;  // value -> node index (the graph is fixed)
    bool isFloat = true;

    const Graph &graph() const { return *layers->graph; }
    const Unit &unit(int u) const { return layers->units[u]; }
    const Node &head(int u) const { return graph().nodes[unit(u).head]; }
    int pairId(int u) const { return isFloat ? u : partner[u]; }

    Origin origin(std::string value) const {
        const Graph &g = graph();
        for (int hops = 0; hops < 64; ++hops) {
            if (auto in = inputPosition.find(value); in != inputPosition.end())
                return {Origin::Input, in->second, ""};
            if (g.initializer(value)) return {};
            const auto produced = producer.find(value);
            if (produced == producer.end()) return {};
            const int p = produced->second;
            const Node &node = g.nodes[p];
            const int u = unitOfNode[p];
            if (u >= 0 && partner[u] >= 0) return {Origin::Paired, pairId(u), ""};
            // A layer without a partner (yet) blocks, unless the other model may have folded it.
            if (u >= 0 && !isFoldable(unit(u).op)) return {Origin::Blocked, 0, node.name};
            if (node.opType == "Constant" || !node.hasInput(0)) return {};
            value = node.inputs[0];  // plumbing, foldable layers, shape ops: look through
        }
        return {};
    }

    // The origins of a unit's non-constant inputs, sorted; nullopt (and the blocking node in
    // `block`) when one comes from a layer without a partner.
    std::optional<std::vector<std::pair<int, int>>> inputOrigins(
        int u, std::string *block = nullptr) const {
        std::vector<std::pair<int, int>> origins;
        for (const std::string &in : head(u).inputs) {
            if (in.empty()) continue;
            const Origin o = origin(in);
            if (o.kind == Origin::Blocked) {
                if (block) *block = o.block;
                return std::nullopt;
            }
            if (o.kind != Origin::Constant) origins.emplace_back(int(o.kind), o.id);
        }
        std::sort(origins.begin(), origins.end());
        return origins;
    }
};

Side makeSide(const GraphLayers &layers, bool isFloat) {
    Side side;
    side.layers = &layers;
    side.isFloat = isFloat;
    const Graph &g = *layers.graph;
    side.unitOfNode.assign(g.nodes.size(), -1);
    side.partner.assign(layers.units.size(), -1);
    for (size_t i = 0; i < g.inputs.size(); ++i) side.inputPosition[g.inputs[i].name] = int(i);
    for (size_t n = 0; n < g.nodes.size(); ++n)
        for (const std::string &out : g.nodes[n].outputs)
            if (!out.empty()) side.producer.emplace(out, int(n));
    for (size_t u = 0; u < layers.units.size(); ++u) {
        const Unit &unit = layers.units[u];
        side.unitOfNode[unit.head] = int(u);
        if (unit.bn >= 0) side.unitOfNode[unit.bn] = int(u);
    }
    // In parallel: on the quantized side each layer's weights are dequantized.
    side.weights.resize(layers.units.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t u = 0; u < layers.units.size(); ++u) {
        const Unit &unit = layers.units[u];
        if (isFoldTarget(unit.op)) side.weights[u] = layerWeightEvidence(g, g.nodes[unit.head]);
    }
    // Canonical order: depth, op type, what follows, file order (independent branches stored in
    // another order line up).
    std::vector<int> order(layers.units.size());
    for (size_t u = 0; u < order.size(); ++u) order[u] = int(u);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        const Unit &a = layers.units[x], &b = layers.units[y];
        return std::tie(a.depth, a.op, a.signature, a.head) <
               std::tie(b.depth, b.op, b.signature, b.head);
    });
    side.position.assign(order.size(), 0);
    for (size_t k = 0; k < order.size(); ++k) side.position[order[k]] = int(k);
    return side;
}

std::optional<double> correlation(const Side &f, int fu, const Side &q, int qu,
                                  WeightCorrelationMemo *memo) {
    if (!f.weights[fu] || !q.weights[qu]) return std::nullopt;
    if (weightFamily(f.unit(fu).op) != weightFamily(q.unit(qu).op)) return std::nullopt;
    auto correlate = [&](int64_t maxChannels) {
        const WeightEvidence &a = *f.weights[fu], &b = *q.weights[qu];
        return memo ? memo->correlation(a, b, maxChannels) : weightCorrelation(a, b, maxChannels);
    };
    // Many layers share a weight shape (a transformer's 768x768 projections): the first
    // channels rule out a stranger at a fraction of the cost.
    const auto first = correlate(8);
    if (first && *first < 0.9) return first;
    return correlate(0);
}

class Pairer {
public:
    Pairer(const GraphLayers &fl, const GraphLayers &ql, WeightCorrelationMemo *memo)
        : f(makeSide(fl, true)), q(makeSide(ql, false)), memo(memo) {}

    void pair(int fu, int qu, const std::string &how, double confidence) {
        f.partner[fu] = qu;
        q.partner[qu] = fu;
        pairs.push_back({fu, qu, how, confidence});
    }

    // 1. Weights: a float and a quantized layer whose weights correlate above kWeightEvidence,
    // each the other's best and no other candidate as good.
    void pairByWeights() {
        const size_t nf = f.layers->units.size(), nq = q.layers->units.size();
        std::vector<std::vector<double>> score(nf, std::vector<double>(nq, -1.0));
        if (stopRequested()) return;  // pairUnits reports the stop
#pragma omp parallel for schedule(dynamic, 1)
        for (size_t a = 0; a < nf; ++a)
            for (size_t b = 0; b < nq; ++b)
                if (auto c = correlation(f, int(a), q, int(b), memo)) score[a][b] = *c;
        auto bestOf = [](const std::vector<double> &row, int *best) {
            double first = -1.0, second = -1.0;
            for (size_t k = 0; k < row.size(); ++k) {
                if (row[k] > first)
                    second = first, first = row[k], *best = int(k);
                else if (row[k] > second)
                    second = row[k];
            }
            return first >= kWeightEvidence && second < first;
        };
        for (size_t a = 0; a < nf; ++a) {
            int b = -1, back = -1;
            if (!bestOf(score[a], &b)) continue;
            std::vector<double> column(nf);
            for (size_t k = 0; k < nf; ++k) column[k] = score[k][b];
            if (bestOf(column, &back) && back == int(a)) pair(int(a), b, "weights", score[a][b]);
        }
    }

    // 2. Structure: a float layer and the quantized layer of the same op type that reads the same
    // values (graph inputs, or outputs of paired layers), in topological order until nothing new
    // pairs. Several candidates: weights, then weight shape, then name, then position decide.
    void pairByStructure() {
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t fu = 0; fu < f.partner.size(); ++fu) {
                if (f.partner[fu] >= 0) continue;
                const auto mine = f.inputOrigins(int(fu));
                if (!mine || mine->empty()) continue;
                std::vector<int> candidates;
                for (size_t qu = 0; qu < q.partner.size(); ++qu) {
                    if (q.partner[qu] >= 0 || q.unit(int(qu)).op != f.unit(int(fu)).op) continue;
                    const auto theirs = q.inputOrigins(int(qu));
                    if (theirs && *theirs == *mine) candidates.push_back(int(qu));
                }
                if (candidates.empty()) continue;
                choose(int(fu), candidates);
                changed = true;
            }
        }
    }

    // 3. What structure could not reach (a layer behind one without a partner): a longest common
    // subsequence of op types over both canonical orders.
    void pairBySequence() {
        std::vector<int> a, b;
        for (int u : byPosition(f))
            if (f.partner[u] < 0) a.push_back(u);
        for (int u : byPosition(q))
            if (q.partner[u] < 0) b.push_back(u);
        const size_t n = a.size(), m = b.size();
        std::vector<std::vector<int>> len(n + 1, std::vector<int>(m + 1, 0));
        auto same = [&](size_t i, size_t j) { return f.unit(a[i]).op == q.unit(b[j]).op; };
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                len[i][j] =
                    same(i, j) ? len[i + 1][j + 1] + 1 : std::max(len[i + 1][j], len[i][j + 1]);
        for (size_t i = 0, j = 0; i < n && j < m;) {
            if (same(i, j)) {
                pair(a[i], b[j], "structure", 0.5);
                ++i, ++j;
            } else if (len[i + 1][j] >= len[i][j + 1]) {
                ++i;
            } else {
                ++j;
            }
        }
    }

    Status checkWeightedLayers() const;
    std::map<int, std::string> reasons(const Side &mine, const Side &other,
                                       const char *otherModel) const;

    Side f, q;
    WeightCorrelationMemo *memo;  // may be null
    std::vector<UnitPair> pairs;

private:
    static std::vector<int> byPosition(const Side &side) {
        std::vector<int> order(side.position.size());
        for (size_t u = 0; u < order.size(); ++u) order[side.position[u]] = int(u);
        return order;
    }

    void choose(int fu, const std::vector<int> &candidates) {
        if (candidates.size() == 1) return pair(fu, candidates[0], "structure", 0.9);
        struct Rank {
            int qu;
            double weights;  // correlation when it is evidence, else -1
            bool shape, name;
            int distance;
        };
        std::vector<Rank> ranks;
        for (int qu : candidates) {
            const auto c = correlation(f, fu, q, qu, memo);
            const bool shape = f.weights[fu] && q.weights[qu] &&
                               f.weights[fu]->weight.shape() == q.weights[qu]->weight.shape();
            ranks.push_back({qu, c && *c >= kWeightEvidence ? *c : -1.0, shape,
                             f.head(fu).name == q.head(qu).name,
                             std::abs(f.position[fu] - q.position[qu])});
        }
        auto key = [](const Rank &r) {
            return std::make_tuple(r.weights, r.shape, r.name, -r.distance);
        };
        std::sort(ranks.begin(), ranks.end(),
                  [&](const Rank &x, const Rank &y) { return key(x) > key(y); });
        const Rank &best = ranks[0], &next = ranks[1];
        if (best.weights != next.weights) return pair(fu, best.qu, "weights", best.weights);
        if (best.shape != next.shape) return pair(fu, best.qu, "structure", 0.8);
        if (best.name != next.name) return pair(fu, best.qu, "name", 0.7);
        pair(fu, best.qu, "structure", 0.5);
    }
};

// Weight shapes as a multiset key: Gemm and MatMul may store the same weight transposed.
std::string weightKey(const Side &side, int u) {
    Shape dims = side.weights[u]->weight.shape();
    std::sort(dims.begin(), dims.end());
    return weightFamily(side.unit(u).op) + shapeToString(dims);
}

Status Pairer::checkWeightedLayers() const {
    std::map<std::string, int> census;
    int floatWeighted = 0, quantWeighted = 0;
    for (size_t u = 0; u < f.weights.size(); ++u)
        if (f.weights[u]) ++census[weightKey(f, int(u))], ++floatWeighted;
    for (size_t u = 0; u < q.weights.size(); ++u)
        if (q.weights[u]) --census[weightKey(q, int(u))], ++quantWeighted;
    if (std::all_of(census.begin(), census.end(), [](const auto &e) { return e.second == 0; }))
        return Status::ok();
    // The weighted layers differ. A pair still holds when every float weighted layer found a
    // partner whose weight has its shape (a quantized weight may not be a constant, say).
    auto mismatch = [&](const Side &side, int u) {
        const int other = side.partner[u];
        const Side &o = side.isFloat ? q : f;
        return other < 0 || (o.weights[other] && weightKey(o, other) != weightKey(side, u));
    };
    auto describe = [](const Side &side, int u) {
        return "the " + std::string(side.isFloat ? "float" : "quantized") + " model's " +
               side.head(u).opType + " '" + side.head(u).name + "' (weight " +
               shapeToString(side.weights[u]->weight.shape()) + ")";
    };
    for (const Side *side : {&f, &q}) {
        for (int u : byPosition(*side)) {
            if (!side->weights[u] || !mismatch(*side, u)) continue;
            const std::string &fp = f.graph().sourcePath, &qp = q.graph().sourcePath;
            const std::string files =
                fp.empty() || qp.empty() ? "" : " ('" + fp + "' vs '" + qp + "')";
            return Status::badInput(
                "models do not match" + files + ": " + describe(*side, u) +
                " has no counterpart with that weight shape in the other model (weighted layers: " +
                std::to_string(floatWeighted) + " float, " + std::to_string(quantWeighted) +
                " quantized); are they the same architecture?");
        }
    }
    return Status::ok();
}

std::map<int, std::string> Pairer::reasons(const Side &mine, const Side &other,
                                           const char *otherModel) const {
    std::map<int, std::string> why;
    for (size_t u = 0; u < mine.partner.size(); ++u) {
        if (mine.partner[u] >= 0) continue;
        const std::string &op = mine.unit(int(u)).op;
        int sameOp = 0, freeSameOp = 0;
        for (size_t v = 0; v < other.partner.size(); ++v)
            if (other.unit(int(v)).op == op) ++sameOp, freeSameOp += other.partner[v] < 0;
        std::string block;
        if (sameOp == 0)
            why[int(u)] = std::string("the ") + otherModel + " model has no " + op + " layer";
        else if (freeSameOp == 0)
            why[int(u)] = std::string("every ") + op + " layer of the " + otherModel +
                          " model is paired with another layer";
        else if (!mine.inputOrigins(int(u), &block))
            why[int(u)] = "it reads the output of '" + block + "', which has no counterpart";
        else
            why[int(u)] = std::string("no unpaired ") + op + " layer of the " + otherModel +
                          " model reads the same inputs";
    }
    return why;
}

}  // namespace

bool isFoldable(const std::string &op) {
    return op == "BatchNormalization" || op == "Relu" || op == "Clip";
}

GraphLayers collectLayers(const Graph &graph) {
    GraphLayers layers;
    layers.graph = &graph;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (const auto &in : graph.nodes[i].inputs)
            if (!in.empty()) layers.consumers[in].push_back(int(i));

    // Depth in compute layers from the graph inputs; plumbing nodes pass depth through.
    std::map<std::string, int> valueDepth;
    std::vector<int> nodeDepth(graph.nodes.size(), 0);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &node = graph.nodes[i];
        int depth = 0;
        for (const auto &in : node.inputs) {
            auto it = valueDepth.find(in);
            if (it != valueDepth.end()) depth = std::max(depth, it->second);
        }
        if (isComputeLayer(node) && !isFoldable(node.opType)) ++depth;
        nodeDepth[i] = depth;
        for (const auto &out : node.outputs)
            if (!out.empty()) valueDepth[out] = depth;
    }

    // Downstream signature: op types of the compute layers fed by a node, three levels deep,
    // so that e.g. a Conv feeding a Relu and a Conv feeding a Concat sort the same way in both
    // models whatever order the files list them in.
    std::function<std::string(int, int)> signature = [&](int index, int levels) -> std::string {
        std::vector<std::string> parts;
        std::vector<int> frontier = {index};
        std::set<int> seen;
        while (!frontier.empty()) {
            const int n = frontier.back();
            frontier.pop_back();
            for (const auto &out : graph.nodes[n].outputs) {
                auto it = layers.consumers.find(out);
                if (it == layers.consumers.end()) continue;
                for (int c : it->second) {
                    if (!seen.insert(c).second) continue;
                    const Node &consumer = graph.nodes[c];
                    if (!isComputeLayer(consumer) || isFoldable(consumer.opType))
                        frontier.push_back(c);
                    else
                        parts.push_back(levels > 1 ? signature(c, levels - 1)
                                                   : canonicalOpType(consumer));
                }
            }
        }
        std::sort(parts.begin(), parts.end());
        std::string text = canonicalOpType(graph.nodes[index]) + "(";
        for (const auto &part : parts) text += part + ",";
        return text + ")";
    };

    std::set<int> absorbed;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &node = graph.nodes[i];
        if (!isComputeLayer(node) || absorbed.count(int(i))) continue;
        Unit unit;
        unit.head = int(i);
        unit.op = canonicalOpType(node);
        unit.depth = nodeDepth[i];
        unit.signature = signature(int(i), 3);
        if (isFoldTarget(unit.op) && !node.outputs.empty()) {
            // The sole consumer, looking through a QuantizeLinear -> DequantizeLinear pair (and
            // Identity/Cast) so that an unfolded BN of a QDQ model (Conv -> Q -> DQ -> BN) pairs
            // too.
            std::string value = node.outputs[0];
            for (int hops = 0; hops < 8 && graph.useCount(value) == 1; ++hops) {
                auto it = layers.consumers.find(value);
                if (it == layers.consumers.end() || it->second.size() != 1) break;
                const Node &next = graph.nodes[it->second[0]];
                if (next.opType == "BatchNormalization" && !next.inputs.empty() &&
                    next.inputs[0] == value) {
                    unit.bn = it->second[0];
                    absorbed.insert(unit.bn);
                    break;
                }
                if (!isPlumbing(next.opType) || next.outputs.empty() || next.inputs.empty() ||
                    next.inputs[0] != value)
                    break;
                value = next.outputs[0];
            }
        }
        layers.units.push_back(unit);
    }
    return layers;
}

Result<Pairing> pairUnits(const GraphLayers &floatLayers, const GraphLayers &quantLayers,
                          WeightCorrelationMemo *memo) {
    Pairer pairer(floatLayers, quantLayers, memo);
    pairer.pairByWeights();
    if (stopRequested()) return stoppedStatus();
    pairer.pairByStructure();
    pairer.pairBySequence();
    pairer.pairByStructure();
    QL_RETURN_IF_ERROR(pairer.checkWeightedLayers());
    Pairing result;
    result.pairs = pairer.pairs;
    result.floatWhy = pairer.reasons(pairer.f, pairer.q, "quantized");
    result.quantWhy = pairer.reasons(pairer.q, pairer.f, "float");
    return result;
}

}  // namespace ql::analysis::pairing
