#!/usr/bin/env python3
"""Generates a chain training graph in networkx node-link JSON: forward
f_0 -> ... -> f_{N-1} (the last one the loss), then gradients g_{N-1} ... g_0,
g_i reading g_{i+1}, f_i and f_{i-1}. Uniform by default (cost 1, 1 MiB);
--random draws costs 1-10 and sizes 1-8 MiB.

usage: gen_chain_graph.py N [--random] [--seed S] > graph.json
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--random", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    nodes, links = [], []
    for i in range(args.n):
        cost = rng.randint(1, 10) if args.random else 1
        size = (rng.randint(1, 8) if args.random else 1) * 2**20
        nodes.append({"id": i, "name": f"f{i}", "backward": False,
                      "cost_cpu": cost, "cost_ram": size})
        if i:
            links.append({"source": i - 1, "target": i})
    for k, i in enumerate(reversed(range(args.n))):
        gid = args.n + k
        nodes.append({"id": gid, "name": f"g{i}", "backward": True,
                      "cost_cpu": 2 * nodes[i]["cost_cpu"],
                      "cost_ram": nodes[i]["cost_ram"]})
        links.append({"source": gid - 1, "target": gid})
        if i:
            links.append({"source": i - 1, "target": gid})
        if k:
            links.append({"source": i, "target": gid})
    print(json.dumps({"directed": True, "multigraph": False, "graph": {},
                      "nodes": nodes, "links": links}))


if __name__ == "__main__":
    main()
