#!/usr/bin/env python3
"""Generates a random layered training graph in networkx node-link JSON.

Forward: `layers` layers of `width` nodes; each node reads 1-2 nodes of the
previous layer and, sometimes, one of an earlier layer (a skip connection);
compute costs and output sizes are drawn per layer in the spirit of the
graphs published with Checkmate and Moccasin (costs 1-100, sizes 1-64 MiB).
Backward: one gradient node per forward node, in reverse order, reading the
gradients of its consumers and the forward values its own computation read.

usage: gen_remat_graph.py NODES [--seed S] > graph.json   (NODES ~ 2 x forward)
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", type=int)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    forward = max(2, args.nodes // 2)
    width = 3
    layers = max(1, forward // width)
    nodes, links, inputs = [], [], {}
    fid = 0
    layer_nodes = []
    for layer in range(layers):
        cur = []
        cost = rng.randint(1, 100)
        size = rng.randint(1, 64) * 2**20
        for _ in range(width):
            ins = []
            if layer_nodes:
                ins = rng.sample(layer_nodes[-1], k=min(len(layer_nodes[-1]), rng.randint(1, 2)))
                if len(layer_nodes) > 2 and rng.random() < 0.2:
                    ins.append(rng.choice(rng.choice(layer_nodes[:-2])))
            nodes.append({"id": fid, "name": f"f{fid}", "backward": False,
                          "cost_cpu": cost * rng.uniform(0.8, 1.2),
                          "cost_ram": size})
            inputs[fid] = ins
            cur.append(fid)
            fid += 1
        layer_nodes.append(cur)
    for v, ins in inputs.items():
        for u in ins:
            links.append({"source": u, "target": v})
    consumers = {v: [w for w, ins in inputs.items() if v in ins] for v in inputs}
    grad = {}
    bid = fid
    for v in reversed(range(fid)):
        node = {"id": bid, "name": f"g{v}", "backward": True,
                "cost_cpu": 2 * nodes[v]["cost_cpu"], "cost_ram": nodes[v]["cost_ram"]}
        nodes.append(node)
        for w in consumers[v]:
            links.append({"source": grad[w], "target": bid})
        for u in inputs[v] + [v]:
            links.append({"source": u, "target": bid})
        grad[v] = bid
        bid += 1
    print(json.dumps({"directed": True, "multigraph": False, "graph": {},
                      "nodes": nodes, "links": links}))


if __name__ == "__main__":
    main()
