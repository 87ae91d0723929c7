/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The multi-kernel WaldBoost reduction (OpenCL C 1.2). Early termination makes
 * neighbouring windows finish at very different times; instead of keeping a
 * work-group busy for its last survivors, every step stops once a fixed share
 * of its windows is left and compacts the survivors into a list that the next
 * step processes densely:
 *
 *   step 1  one work-item per window position of the whole pyramid
 *   step 2  the same over the candidate list (launched any number of times)
 *   step 4  one work-group per candidate, its weak classifiers in parallel
 *
 * (The thesis' step 3, which brought every candidate to the same weak
 * classifier before step 4, is not needed: step 4 starts each candidate at
 * its own next weak classifier.)
 *
 * Nothing is ever dropped: lists are sized by device-side counters, and a
 * list that outgrows its buffer is detected by the host, which enlarges the
 * buffer and runs the frame again.
 *
 * Running sums are 64-bit fixed point (FIXED_SHIFT fraction bits): integer
 * addition is exact and associative, so step 4's parallel sums equal the
 * sequential ones bit for bit, and the rejection decisions equal the CPU
 * reference's.
 *
 * The feature is reached only through the entry points of kernels/cascade.cl
 * (feature_response() and the others), which the feature file built before
 * this one defines.
 *
 * Build options (all -D): GROUP_SIZE, STEP4_GROUP_SIZE, STEP1_UNSYNC,
 * STEP1_DIVISOR, STEP2_UNSYNC, STEP2_DIVISOR, STEP2_ROUNDS, WEAK_COUNT, FIRST_TEST;
 * STEP4_SEGMENTS (STEP4_ITEMS) where the feature kind asks for it;
 * ROW_SCAN with the row scan (scan_rows.cl); STOP_CHECKS (below).
 */

/* ScanLevel, Candidate, Accepted and the counter slots: kernels/shared.h;
 * Cascade: kernels/cascade.cl. */

DEFINE_FIND_LEVEL(find_scan_level, ScanLevel)

/* Integral-image offset of the top-left pixel of the window at `index`,
 * which lies in `level`. */
static int level_window_origin(const ScanLevel level, int pitch, uint index)
{
    const int local_index = (int)(index - level.first);
    const int row = local_index / level.columns;
    const int column = local_index - row * level.columns;
    return level.origin + row * level.step * pitch + column * level.step;
}

static int window_origin(__global const ScanLevel* levels, int level_count, int pitch, uint index)
{
    return level_window_origin(levels[find_scan_level(levels, level_count, index)], pitch, index);
}

/* Step 1 evaluates the weak classifiers through the first rejection test
 * for every window (none of them but the last can end a window) in a loop
 * unrolled at compile time, so that all their reads are in flight at once.
 */
#if FIRST_TEST >= 16 || FIRST_TEST >= WEAK_COUNT
#define STEP1_PREFIX 0
#elif FIRST_TEST + 1 <= STEP1_UNSYNC
#define STEP1_PREFIX (FIRST_TEST + 1)
#else
#define STEP1_PREFIX STEP1_UNSYNC
#endif

/* STEP1_REPACK (see step1_scan): used
 * where step 1 has divisor 1 (the GPU defaults) and more unsynchronised weak
 * classifiers after the unrolled first stage. */
#if STEP1_DIVISOR == 1 && STEP1_PREFIX > 0 && STEP1_PREFIX < STEP1_UNSYNC && STEP1_PREFIX < WEAK_COUNT
#define STEP1_REPACK 1
#else
#define STEP1_REPACK 0
#endif

#ifdef STOP_CHECKS
/* Built in only for classifiers whose windows may cost more node
 * evaluations than any real cascade's (the engine's build_options()
 * decides): then one window alone may take long, and a frame minutes. A
 * window reads the host's stop flag (Cascade::stop_flag) when a scan hands
 * it on and at every STOP_STRIDE-th weak classifier, and ends once the flag
 * is raised: the host drops the frame's results. Segments end at those weak
 * classifiers, so that no segment runs past a check. */
#define STOP_STRIDE 16
#endif

/* Evaluates the weak classifier at *t, or with `segments` those from *t up
 * to the next rejection test or sum reset (none of which can end the
 * window) in a loop without exits whose reads the compiler can issue
 * together, then applies the test. A window rejected at the first
 * rejection test is marked for the skip rule. */
static void advance_segment(const Cascade* c, int origin, int stop, uint* t, long* sum, bool* alive,
                            uint* evaluated, __global uchar* first_stage_rejected, uint index, bool segments)
{
    const int k = (int)*t;
#ifdef STOP_CHECKS
    if ((k & (STOP_STRIDE - 1)) == 0 && *c->stop_flag) {
        *alive = false;
        return;
    }
    stop = min(stop, (k | (STOP_STRIDE - 1)) + 1);
#endif
    int end = k;
    long s = *sum;
    if (segments) {
        end = feature_segment_end(c, k, stop);
#if FEATURE_UNROLLS /* branches in a response defeat unrolling (LLVM warns) */
#pragma unroll 4
#endif
        for (int j = k; j <= end; ++j)
            s += feature_response(c, origin, j);
    } else {
        s += feature_response(c, origin, k);
    }
    *evaluated += (uint)(end - k + 1);
    *t = (uint)(end + 1);
    if (s < c->thresholds[end]) {
        *alive = false;
        if (end == FIRST_TEST)
            first_stage_rejected[index] = 1;
    } else if (c->resets[end] && end + 1 < WEAK_COUNT) {
        /* The last weak classifier's sum is the score: never reset it. */
        s = 0;
    }
    *sum = s;
}

/* Evaluates weak classifiers from *t up to `stop` while the window lives.
 * Segments help step 2's unsynchronised run and slow step 1's (measured on
 * the H100, docs/history.md, "Figures behind the code's choices"), so only
 * step 2 uses them there. */
static void advance_by(const Cascade* c, int origin, int stop, uint* t, long* sum, bool* alive, uint* evaluated,
                       __global uchar* first_stage_rejected, uint index, bool segments)
{
    stop = min(stop, WEAK_COUNT);
#ifdef STOP_CHECKS
    /* A window handed on after the stop costs nothing more. */
    if (*c->stop_flag)
        *alive = false;
#endif
    while (*alive && (int)*t < stop)
        advance_segment(c, origin, stop, t, sum, alive, evaluated, first_stage_rejected, index, segments);
}

static void advance(const Cascade* c, int origin, int stop, uint* t, long* sum, bool* alive, uint* evaluated,
                    __global uchar* first_stage_rejected, uint index)
{
    advance_by(c, origin, stop, t, sum, alive, evaluated, first_stage_rejected, index, false);
}

/* Per-work-item state kept in local memory across the synchronised rounds.
 * Keeping it out of private variables that live across barriers also avoids
 * a miscompilation seen with PoCL 3.1's optimiser (wrong results unless
 * built with -cl-opt-disable). */
typedef struct {
    __local uint* t;
    __local long* sum;
    __local uchar* alive;
    __local uint* evaluated;
    __local float* norm; /* carries the window's factor through step 1's repacking */
} GroupState;

/* Synchronised rounds: the group evaluates one more segment per round (up
 * to each window's next rejection test: no window can end in between, so
 * counting them there would only cost barriers) until at most
 * GROUP_SIZE / divisor of its windows still need work, or after
 * `max_rounds`. Haar stages are up to 211 weak classifiers long, and a
 * round per weak classifier paid three barriers and a local atomic for each
 * (docs/history.md, round 9). A WaldBoost sequence tests after every weak
 * classifier, so a group of its deepest windows (faces, and backgrounds
 * like them) would walk hundreds of rounds with the device waiting; the
 * bound hands them to the next launch and step 4, which spreads a window
 * over a group (docs/history.md, round 15). */
static void rounds(const Cascade* c, int origin, GroupState s, __global uchar* first_stage_rejected, uint index,
                   int divisor, int max_rounds, __local uint* live)
{
    const int lid = get_local_id(0);
    for (int round = 0; round < max_rounds; ++round) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            *live = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s.alive[lid] && s.t[lid] < WEAK_COUNT)
            atomic_inc(live);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (*live <= GROUP_SIZE / divisor)
            break;
        uint t = s.t[lid], evaluated = s.evaluated[lid];
        long sum = s.sum[lid];
        bool alive = s.alive[lid];
        if (alive && t < WEAK_COUNT)
            advance_segment(c, origin, WEAK_COUNT, &t, &sum, &alive, &evaluated, first_stage_rejected, index, true);
        s.t[lid] = t;
        s.sum[lid] = sum;
        s.alive[lid] = alive;
        s.evaluated[lid] = evaluated;
    }
}

/* Runs the rounds on a work-item's private state through local memory. */
static void synchronised_rounds(const Cascade* c, int origin, uint* t, long* sum, bool* alive, uint* evaluated,
                                __global uchar* first_stage_rejected, uint index, int divisor, int max_rounds,
                                GroupState s, __local uint* live)
{
    const int lid = get_local_id(0);
    s.t[lid] = *t;
    s.sum[lid] = *sum;
    s.alive[lid] = *alive;
    s.evaluated[lid] = *evaluated;
    rounds(c, origin, s, first_stage_rejected, index, divisor, max_rounds, live);
    *t = s.t[lid];
    *sum = s.sum[lid];
    *alive = s.alive[lid];
    *evaluated = s.evaluated[lid];
}

#define GROUP_STATE_STORAGE                                                                                  \
    __local uint state_t[GROUP_SIZE];                                                                        \
    __local long state_sum[GROUP_SIZE];                                                                      \
    __local uchar state_alive[GROUP_SIZE];                                                                   \
    __local uint state_evaluated[GROUP_SIZE];                                                                \
    GroupState state;                                                                                        \
    state.t = state_t;                                                                                       \
    state.sum = state_sum;                                                                                   \
    state.alive = state_alive;                                                                               \
    state.evaluated = state_evaluated;                                                                       \
    NORM_STATE_STORAGE
#if FEATURE_NORMALISES
#define NORM_STATE_STORAGE                                                                                   \
    __local float state_norm[GROUP_SIZE];                                                                    \
    state.norm = state_norm
#else
#define NORM_STATE_STORAGE state.norm = 0
#endif

/* Appends a fully evaluated window to the accepted list when it passes, and
 * counts it for its frame: in a batch, the frames whose windows all fit are
 * complete, and only the others run again. */
static void accept(__global Accepted* accepted, uint capacity, __global uint* counters,
                   __global const ScanLevel* levels, int level_count, uint index, long sum, long final_threshold)
{
    if (sum < final_threshold)
        return;
    atomic_inc(&counters[COUNT_FRAMES + levels[find_scan_level(levels, level_count, index)].frame]);
    const uint slot = atomic_inc(&counters[COUNT_ACCEPTED]);
    if (slot < capacity) {
        Accepted a;
        a.index = index;
        a.hidden = 0;
        a.score = sum - final_threshold;
        accepted[slot] = a;
    }
}

/* The group's survivors that still need work go to `out` through local
 * memory: one global atomic per group and one coalesced write. Also adds the
 * group's evaluation count. */
static void compact(bool keep, uint index, uint t, long sum, uint evaluated, __global Candidate* out,
                    uint out_capacity, __global uint* counters, int out_counter, __local Candidate* buffer,
                    __local uint* shared)
{
    /* shared[0] = survivors, [1] = global base, [2] = evaluations */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        shared[0] = 0;
        shared[2] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (evaluated)
        atomic_add(&shared[2], evaluated);
    if (keep) {
        const uint k = atomic_inc(&shared[0]);
        Candidate cand;
        cand.index = index;
        cand.next = t;
        cand.sum = sum;
        buffer[k] = cand;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        shared[1] = shared[0] ? atomic_add(&counters[out_counter], shared[0]) : 0;
        if (shared[2])
            atomic_add(&counters[COUNT_WEAK_EVALUATED], shared[2]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint lid = get_local_id(0);
    if (lid < shared[0] && shared[1] + lid < out_capacity)
        out[shared[1] + lid] = buffer[lid];
}

/* Step 1: every window position of the pyramid, one work-item each. */
__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void step1_scan(CASCADE_ARGS, __global const ScanLevel* levels, int level_count, uint total,
                __global Candidate* out, uint out_capacity, int out_counter,
                __global Accepted* accepted, uint accepted_capacity, __global uint* counters,
                __global uchar* first_stage_rejected, __global const int* group_levels)
{
    __local Candidate buffer[GROUP_SIZE];
    __local uint shared[4];
    GROUP_STATE_STORAGE;
    MAKE_CASCADE();
    const uint index = get_global_id(0);
    bool alive = index < total;
    /* Step 1's groups take consecutive windows: the host gives each group
     * the level of its first window, and a work-item walks on from there
     * (past a few levels only at the smallest scales), instead of a binary
     * search of dependent loads per window (docs/history.md, round 4). */
    int level = group_levels[get_group_id(0)];
    while (level + 1 < level_count && levels[level + 1].first <= index)
        ++level;
    const int origin = alive ? level_window_origin(levels[level], pitch, index) : 0;
#if FEATURE_NORMALISES
    c.norm = alive ? feature_window_norm(&c, origin) : 0.0f;
    alive = alive && c.norm != 0.0f;
#endif
    uint t = 0, evaluated = 0;
    long sum = 0;
#if STEP1_PREFIX > 0
    if (alive) {
        long s = 0;
#pragma unroll
        for (int k = 0; k < STEP1_PREFIX - 1; ++k) {
            s += feature_response(&c, origin, k);
            if (c.resets[k]) /* no test before FIRST_TEST, and k + 1 < WEAK_COUNT */
                s = 0;
        }
        const int last = STEP1_PREFIX - 1;
        s += feature_response(&c, origin, last);
        t = STEP1_PREFIX;
        evaluated = STEP1_PREFIX;
        if (s < c.thresholds[last]) {
            alive = false;
            if (last == FIRST_TEST)
                first_stage_rejected[index] = 1;
        }
#if STEP1_PREFIX < WEAK_COUNT /* the last weak classifier's sum is the score: never reset */
        else if (c.resets[last]) {
            s = 0;
        }
#endif
        sum = s;
    }
#endif

#if STEP1_REPACK
    /* The group's windows that survive the first stage are packed onto its
     * first work-items (through local memory), which evaluate them up to
     * STEP1_UNSYNC: a few full warps instead of a few lanes of every warp,
     * since nearly every warp has some survivor of the first stage
     * (docs/history.md, round 3). */
    {
        __local uint* repack_index = state.t;
        __local long* repack_sum = state.sum;
        __local uint* repack_origin = state.evaluated;
        const int lid = get_local_id(0);
        if (lid == 0)
            shared[0] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (alive && t < WEAK_COUNT) {
            const uint k = atomic_inc(&shared[0]);
            repack_index[k] = index;
            repack_sum[k] = sum;
            repack_origin[k] = (uint)origin;
#if FEATURE_NORMALISES
            state.norm[k] = c.norm;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint packed = shared[0];
        alive = (uint)lid < packed;
        uint packed_index = 0;
        int packed_origin = 0;
        t = STEP1_PREFIX;
        sum = 0;
        if (alive) {
            packed_index = repack_index[lid];
            packed_origin = (int)repack_origin[lid];
            sum = repack_sum[lid];
#if FEATURE_NORMALISES
            c.norm = state.norm[lid];
#endif
        }
        advance(&c, packed_origin, STEP1_UNSYNC, &t, &sum, &alive, &evaluated, first_stage_rejected, packed_index);
        if (alive && t == WEAK_COUNT)
            accept(accepted, accepted_capacity, counters, levels, level_count, packed_index, sum, final_threshold);
        compact(alive && t < WEAK_COUNT, packed_index, t, sum, evaluated, out, out_capacity, counters, out_counter,
                buffer, shared);
    }
#else
    advance(&c, origin, STEP1_UNSYNC, &t, &sum, &alive, &evaluated, first_stage_rejected, index);
#if STEP1_DIVISOR > 1 /* with divisor 1 the rounds stop at once */
    /* Unbounded: step 1's lists are sized for 1/divisor of every group. */
    synchronised_rounds(&c, origin, &t, &sum, &alive, &evaluated, first_stage_rejected, index, STEP1_DIVISOR,
                        INT_MAX, state, &shared[0]);
#endif
    if (alive && t == WEAK_COUNT)
        accept(accepted, accepted_capacity, counters, levels, level_count, index, sum, final_threshold);
    compact(alive && t < WEAK_COUNT, index, t, sum, evaluated, out, out_capacity, counters, out_counter, buffer,
            shared);
#endif
}

/* Step 2's loop over a candidate list. The launch is a fixed number of
 * groups that loop over the list, whose length only the device knows. Each
 * candidate gets `unsync` more weak classifiers, then synchronised rounds. */
static void continue_list(const Cascade* cascade, __global const ScanLevel* levels, int level_count,
                          __global const Candidate* in, uint in_capacity, int in_counter, __global Candidate* out,
                          uint out_capacity, int out_counter, __global Accepted* accepted, uint accepted_capacity,
                          __global uint* counters, __global uchar* first_stage_rejected, long final_threshold,
                          int unsync, int divisor, int max_rounds, GroupState state, __local Candidate* buffer,
                          __local uint* shared)
{
    const uint count = min(counters[in_counter], in_capacity);
    Cascade window = *cascade; /* with the candidate's norm factor */
    const Cascade* c = &window;
    for (uint base = get_group_id(0) * GROUP_SIZE; base < count; base += get_num_groups(0) * GROUP_SIZE) {
        const uint i = base + get_local_id(0);
        bool alive = i < count;
        Candidate cand;
        cand.index = 0;
        cand.next = WEAK_COUNT;
        cand.sum = 0;
        if (alive)
            cand = in[i];
        const int origin = alive ? window_origin(levels, level_count, c->pitch, cand.index) : 0;
        window.norm = feature_window_norm(c, origin);
        uint t = cand.next, evaluated = 0;
        long sum = cand.sum;
        advance_by(c, origin, (int)t + unsync, &t, &sum, &alive, &evaluated, first_stage_rejected, cand.index,
                   true);
        synchronised_rounds(c, origin, &t, &sum, &alive, &evaluated, first_stage_rejected, cand.index, divisor,
                            max_rounds, state, &shared[0]);
        if (alive && t == WEAK_COUNT)
            accept(accepted, accepted_capacity, counters, levels, level_count, cand.index, sum, final_threshold);
        compact(alive && t < WEAK_COUNT, cand.index, t, sum, evaluated, out, out_capacity, counters, out_counter,
                buffer, shared);
    }
}

#define LIST_STEP_ARGS                                                                                      \
    CASCADE_ARGS, __global const ScanLevel *levels, int level_count, __global const Candidate *in,          \
        uint in_capacity, int in_counter, __global Candidate *out, uint out_capacity, int out_counter,      \
        __global Accepted *accepted, uint accepted_capacity, __global uint *counters,                       \
        __global uchar *first_stage_rejected

/* Step 2: continues the candidates of a list; any number of launches. */
__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void step2_reduce(LIST_STEP_ARGS)
{
    __local Candidate buffer[GROUP_SIZE];
    __local uint shared[4];
    GROUP_STATE_STORAGE;
    MAKE_CASCADE();
    continue_list(&c, levels, level_count, in, in_capacity, in_counter, out, out_capacity, out_counter, accepted,
                  accepted_capacity, counters, first_stage_rejected, final_threshold, STEP2_UNSYNC,
                  STEP2_DIVISOR, STEP2_ROUNDS, state, buffer, shared);
}

#ifdef STEP4_SEGMENTS
#ifndef STEP4_ITEMS
#define STEP4_ITEMS 4
#endif
/* Step 4 for cascades whose tests are sparse (OpenCV's Haar cascades test
 * only at stage ends; the feature kind decides, haar_kind.cpp): every
 * chunk of weak classifiers ends at the end of a segment
 * (feature_segment_end()) or earlier, so the group needs only the chunk's total, a plain tree
 * reduction (6 barriers for 64 work-items) instead of a segmented scan
 * (12), and only one test. Each work-item takes STEP4_ITEMS weak
 * classifiers of a chunk, so that its reads are in flight together
 * (docs/history.md, round 10). */
static void finish_by_segments(const Cascade* c, int origin, const Candidate cand, __local long* sums,
                               __local int* stop_seen, __global const ScanLevel* levels, int level_count,
                               __global Accepted* accepted, uint accepted_capacity, __global uint* counters,
                               __global uchar* first_stage_rejected, long final_threshold)
{
    const int lid = get_local_id(0);
    long sum = cand.sum;
    bool alive = true;
    int base = (int)cand.next;
    uint evaluated = 0;
    while (alive && base < WEAK_COUNT) {
#ifdef STOP_CHECKS
        /* One read for the group, whose work-items leave the loop together
         * (barriers); the first barrier waits until the last one is read. */
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            *stop_seen = *c->stop_flag;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (*stop_seen) {
            alive = false;
            break;
        }
#endif
        const int end = feature_segment_end(c, base, WEAK_COUNT);
        const int stop = min(end + 1, base + STEP4_GROUP_SIZE * STEP4_ITEMS);
        long own = 0;
#pragma unroll
        for (int k = 0; k < STEP4_ITEMS; ++k) {
            const int t = base + lid + k * STEP4_GROUP_SIZE;
            if (t < stop)
                own += feature_response(c, origin, t);
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the last total */
        sums[lid] = own;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = STEP4_GROUP_SIZE / 2; d > 0; d >>= 1) {
            if (lid < d)
                sums[lid] += sums[lid + d];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        sum += sums[0];
        evaluated += (uint)(stop - base);
        if (stop == end + 1) {
            if (sum < c->thresholds[end]) {
                alive = false;
                if (lid == 0 && end == FIRST_TEST)
                    first_stage_rejected[cand.index] = 1;
            } else if (c->resets[end] && end + 1 < WEAK_COUNT) {
                sum = 0;
            }
        }
        base = stop;
    }
    if (lid == 0) {
        atomic_add(&counters[COUNT_WEAK_EVALUATED], evaluated);
        if (alive)
            accept(accepted, accepted_capacity, counters, levels, level_count, cand.index, sum, final_threshold);
    }
}
#endif

/* Step 4: one work-group per candidate. Its work-items take consecutive weak
 * classifiers, and a segmented inclusive scan (segments restart after a sum
 * reset) gives the running sum after each of them, so every rejection
 * threshold is tested exactly where the sequential evaluation would test it. */
__kernel __attribute__((reqd_work_group_size(STEP4_GROUP_SIZE, 1, 1)))
void step4_finish(CASCADE_ARGS, __global const ScanLevel* levels, int level_count,
                  __global const Candidate* in, uint in_capacity, int in_counter,
                  __global Accepted* accepted, uint accepted_capacity, __global uint* counters,
                  __global uchar* first_stage_rejected)
{
    __local long sums[STEP4_GROUP_SIZE];
    __local uchar heads[STEP4_GROUP_SIZE];
    __local uint first_reject;
    __local uint evaluated;
#ifdef STOP_CHECKS
    __local int stop_seen; /* the stop flag as the group's first work-item read it */
#define STOP_SEEN_AT (&stop_seen)
#else
#define STOP_SEEN_AT ((__local int*)0) /* never read */
#endif
    MAKE_CASCADE();
    const int lid = get_local_id(0);
    const uint count = min(counters[in_counter], in_capacity);
    for (uint i = get_group_id(0); i < count; i += get_num_groups(0)) {
        const Candidate cand = in[i];
        const int origin = window_origin(levels, level_count, pitch, cand.index);
        c.norm = feature_window_norm(&c, origin);
#ifdef STEP4_SEGMENTS
        finish_by_segments(&c, origin, cand, sums, STOP_SEEN_AT, levels, level_count, accepted, accepted_capacity,
                           counters, first_stage_rejected, final_threshold);
#else
        if (lid == 0) {
            first_reject = WEAK_COUNT;
            evaluated = 0;
        }
        long carry = cand.sum;
        long last = cand.sum;
        bool stopped = false; /* the group saw the stop flag raised */
        for (int base = (int)cand.next; base < WEAK_COUNT; base += STEP4_GROUP_SIZE) {
#ifdef STOP_CHECKS
            /* Read by one work-item for the group (see finish_by_segments);
             * the others read it last before the chunk's barriers. */
            if (lid == 0)
                stop_seen = *c.stop_flag;
#endif
            barrier(CLK_LOCAL_MEM_FENCE);
            if (first_reject < WEAK_COUNT)
                break;
#ifdef STOP_CHECKS
            stopped = stop_seen != 0;
            if (stopped)
                break;
#endif
            const int t = base + lid;
            const bool valid = t < WEAK_COUNT;
            long value = valid ? feature_response(&c, origin, t) : 0;
            if (lid == 0)
                value += carry;
            sums[lid] = value;
            heads[lid] = lid > 0 && valid && resets[t - 1];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int d = 1; d < STEP4_GROUP_SIZE; d <<= 1) {
                long add = 0;
                uchar head = 0;
                if (lid >= d) {
                    add = sums[lid - d];
                    head = heads[lid - d];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (!heads[lid])
                    sums[lid] += add;
                heads[lid] |= head;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (valid && sums[lid] < thresholds[t])
                atomic_min(&first_reject, (uint)t);
            const int in_chunk = min(STEP4_GROUP_SIZE, WEAK_COUNT - base);
            if (lid == 0)
                atomic_add(&evaluated, (uint)in_chunk);
            barrier(CLK_LOCAL_MEM_FENCE);
            last = sums[in_chunk - 1];
            carry = resets[base + in_chunk - 1] ? 0 : last;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            /* Only the weak classifiers up to the rejection count as evaluated. */
            const uint stop = first_reject < WEAK_COUNT ? first_reject + 1 : WEAK_COUNT;
            const uint chunk_evaluated = min(evaluated, stop - cand.next);
            atomic_add(&counters[COUNT_WEAK_EVALUATED], chunk_evaluated);
            if (first_reject < WEAK_COUNT) {
                if ((int)first_reject == FIRST_TEST)
                    first_stage_rejected[cand.index] = 1;
            } else if (!stopped) {
                accept(accepted, accepted_capacity, counters, levels, level_count, cand.index, last, final_threshold);
            }
        }
#endif
    }
}

/* OpenCV's scan skips the position after a window rejected at the first
 * stage. Since a position right after a window that was not rejected there is
 * always visited, a window is visited exactly when the run of first-stage
 * rejections immediately before it in its row has even length. */
__kernel void apply_skip_rule(__global const ScanLevel* levels, int level_count, __global Accepted* accepted,
                              uint accepted_capacity, __global const uint* counters,
                              __global const uchar* first_stage_rejected)
{
    const uint i = get_global_id(0);
    if (i >= min(counters[COUNT_ACCEPTED], accepted_capacity))
        return;
    const uint index = accepted[i].index;
    const ScanLevel level = levels[find_scan_level(levels, level_count, index)];
    if (!level.skip_rule)
        return;
    const int column = (int)((index - level.first) % (uint)level.columns);
    int run = 0;
    while (run < column && first_stage_rejected[index - 1 - run])
        ++run;
    accepted[i].hidden = run & 1;
}
