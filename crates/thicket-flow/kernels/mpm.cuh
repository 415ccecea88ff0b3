// The MPM device functions that kernels/mpm.cu (host loops of launches) and
// kernels/mpm_fused.cu (one cooperative launch) share: a vertex's potential, its pruning and
// its share of a push/pull step (Solomon 2012, ch. 5), on the residual graph with paired
// reverse arcs (the residual arcs out of v are start[v]..start[v+1], each with its head, its
// pair and its residual capacity).
//
// Two choices are the including file's:
// - Load: how arrays that other threads write are read. PlainLoad where a launch boundary
//   orders the writes (mpm.cu); L2Load (__ldcg) inside one launch, as L1 is not coherent
//   between blocks (mpm_fused.cu).
// - mark(v): what becomes of a neighbour whose potential fell or that received flow: a flag
//   for the next scan (mpm.cu) or an append to the next list (mpm_fused.cu).
//
// u32, i64 and atomic_add_i64 come from thicket.cuh, which the includer includes first.
#pragma once

struct PlainLoad {
    template <typename T>
    __device__ __forceinline__ static T at(const T* p) {
        return *p;
    }
};

struct L2Load {
    template <typename T>
    __device__ __forceinline__ static T at(const T* p) {
        return __ldcg(p);
    }
};

// The potential of v: the least of the room into it and out of it along layered arcs (the
// source's is its room out, the sink's its room in).
template <class Load>
__device__ __forceinline__ i64 mpm_potential(u32 v, u32 s, u32 t, const i64* in, const i64* out) {
    const i64 a = Load::at(in + v), b = Load::at(out + v);
    if (v == s) return b;
    if (v == t) return a;
    return a < b ? a : b;
}

// Removes v if its potential is 0 (true then) and takes its layered arcs' capacities off its
// live neighbours' potentials, marking each.
template <class Load, class Mark>
__device__ __forceinline__ bool mpm_prune_vertex(u32 v, const u32* start, const u32* head,
                                                 const u32* pair, const i64* cap,
                                                 const u32* level, u32* alive, i64* in, i64* out,
                                                 u32 s, u32 t, Mark mark) {
    if (!Load::at(alive + v) || mpm_potential<Load>(v, s, t, in, out) != 0) return false;
    alive[v] = 0;
    const u32 lv = Load::at(level + v);
    for (u32 e = start[v]; e < start[v + 1]; ++e) {
        const u32 h = head[e];
        if (!Load::at(alive + h)) continue;
        const u32 lh = Load::at(level + h);
        const i64 forward = Load::at(cap + e), backward = Load::at(cap + pair[e]);
        if (lh == lv + 1 && forward > 0) {
            atomic_add_i64(in + h, -forward);
        } else if (lh + 1 == lv && backward > 0) {
            atomic_add_i64(out + h, -backward);
        } else {
            continue;
        }
        mark(h);
    }
    return true;
}

// v's share of push/pull step k from v_m (level lm, least potential `least`): push what it
// holds forward (level lm + k) or pull what it owes backward (level lm - k), greedily along
// layered arcs; v_m does both with `least` in step 0, and no other vertex acts in it. The
// receivers' potentials and holdings change by atomics, and each receiver but the terminals
// is marked.
template <class Load, class Mark>
__device__ __forceinline__ void mpm_push_pull_vertex(u32 v, u32 k, u32 vm, u32 lm, i64 least,
                                                     const u32* start, const u32* head,
                                                     const u32* pair, i64* cap, const u32* level,
                                                     const u32* alive, i64* in, i64* out,
                                                     i64* held, u32 s, u32 t, Mark mark) {
    if (!Load::at(alive + v)) return;
    const bool is_vm = v == vm;
    if (k == 0 && !is_vm) return;
    const u32 lv = Load::at(level + v);
    const i64 amount = is_vm ? least : Load::at(held + v);
    if (amount <= 0) return;
    if (!is_vm) held[v] = 0;
    const bool pushes = (is_vm || lv == lm + k) && v != t;
    const bool pulls = (is_vm || lv + k == lm) && v != s;
    if (pushes) {
        i64 left = amount;
        for (u32 e = start[v]; e < start[v + 1] && left > 0; ++e) {
            const u32 h = head[e];
            const i64 room = Load::at(cap + e);
            if (room <= 0 || !Load::at(alive + h) || Load::at(level + h) != lv + 1) continue;
            const i64 x = left < room ? left : room;
            cap[e] = room - x;
            cap[pair[e]] = Load::at(cap + pair[e]) + x;
            out[v] = Load::at(out + v) - x;
            left -= x;
            atomic_add_i64(in + h, -x);
            atomic_add_i64(held + h, x);
            if (h != t) mark(h);
        }
    }
    if (pulls) {
        i64 left = amount;
        for (u32 e = start[v]; e < start[v + 1] && left > 0; ++e) {
            const u32 u = head[e];
            const u32 a = pair[e];
            const i64 room = Load::at(cap + a);
            if (room <= 0 || !Load::at(alive + u) || Load::at(level + u) + 1 != lv) continue;
            const i64 x = left < room ? left : room;
            cap[a] = room - x;
            cap[e] = Load::at(cap + e) + x;
            in[v] = Load::at(in + v) - x;
            left -= x;
            atomic_add_i64(out + u, -x);
            atomic_add_i64(held + u, x);
            if (u != s) mark(u);
        }
    }
}
