// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import dat.api.DatIaAttr;
import dat.tck.TckContext;
import dat.tck.rules.TckFixture;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs the model-based campaign: episodes of random {@link Op}s, each on a fresh IA, each checked step by step by
 * {@link World}; on the first violation, shrinks the episode to a shorter sequence that still fails and reports the
 * seed, the step and that reproduction.
 *
 * <p>Steps are a pure function of the seed (the generator never looks at what the provider did), so
 * {@code dat tck --seed S --steps N} replays the same calls; only the provider's timing can differ.
 */
public final class Campaign {

    /** Steps per episode: long enough to reach deep states, short enough to shrink. */
    public static final int EPISODE_STEPS = 2000;

    /**
     * The top 16 bits of a seed whose steps draw each choice on its own ({@link Op#draw}). A seed without them is a
     * first-campaign seed: its steps decode five numbers each ({@link Op#v1}), so seeds found before this marker
     * (0xec9c1700eac897fa and 0x57781e00091bbf2b in the verbs guest, 0x1 in the docs) replay the same calls.
     */
    static final long V2 = 0xDA72L << 48;
    private static final long VERSION_BITS = 0xFFFFL << 48;

    private static final boolean TRACE = Boolean.getBoolean("dat.tck.campaign.trace");

    private final Supplier<TckFixture> open;
    private final long seed;
    private final long steps;
    private final long nanos;
    private final long shrinkNanos;
    private final long stepTimeoutMillis;
    private final Map<Op.Kind, long[]> counts = new EnumMap<>(Op.Kind.class);
    private long stepsRun;
    private long episodes;
    private String replayCommand;
    private final boolean perChoice;

    /**
     * @param open opens a fresh fixture (a new IA) for each episode and each replay
     * @param seed the campaign's seed
     * @param steps at most this many steps in all
     * @param seconds at most this long (the episode under way finishes its step)
     * @param shrinkSeconds how long a failure may be shrunk
     * @param eventTimeoutMillis how long the kit waits for an event; a step hung 4 times that long is a hang
     */
    public Campaign(Supplier<TckFixture> open, long seed, long steps, double seconds, double shrinkSeconds,
                    long eventTimeoutMillis) {
        this.open = open;
        this.seed = seed;
        this.steps = steps;
        this.nanos = (long) (seconds * 1e9);
        this.shrinkNanos = (long) (shrinkSeconds * 1e9);
        this.stepTimeoutMillis = 4 * eventTimeoutMillis + 30_000;
        this.perChoice = (seed & VERSION_BITS) == V2;
        for (Op.Kind k : Op.Kind.values()) {
            counts.put(k, new long[2]);
        }
    }

    /**
     * Names the command that reruns the kit against the provider under test, so the replay line of a failure runs
     * as written (against the vendor's provider, not the default one).
     *
     * @param command {@code dat ... tck --ia NAME}, or {@code null} to name the configuration parameters instead
     * @return this campaign
     */
    public Campaign replayCommand(String command) {
        this.replayCommand = command;
        return this;
    }

    /** {@return the line that runs {@code steps} steps of {@code seed} again} */
    private String replay(long replaySeed, long replaySteps) {
        if (replayCommand != null) {
            return String.format("%s --only '*campaign*' --seed 0x%x --steps %d", replayCommand, replaySeed,
                    replaySteps);
        }
        return String.format("run required_campaign_randomSequencesAgreeWithTheModel alone with the JUnit"
                + " configuration parameters %s=0x%x and %s=%d", TckContext.CAMPAIGN_SEED, replaySeed,
                TckContext.CAMPAIGN_STEPS, replaySteps);
    }

    /**
     * {@return what the IA's limits deny that the campaign needs, or {@code null} when they allow it: it asks for
     * three connected EP pairs with three EVDs each (and a CR EVD while connecting), a PZ, registered
     * regions, queues of at least one DTO and one segment, and messages of up to 2 KiB}
     *
     * @param limits the IA's limits
     */
    public static String unmetNeed(DatIaAttr limits) {
        int eps = 2 * World.PAIRS;
        int evds = 3 * eps + 1;
        String[][] needs = {
            {"max_pzs", Integer.toString(limits.maxPzs()), "1"},
            {"max_eps", Integer.toString(limits.maxEps()), Integer.toString(eps)},
            {"max_evds", Integer.toString(limits.maxEvds()), Integer.toString(evds)},
            {"max_lmrs", Integer.toString(limits.maxLmrs()), Integer.toString(World.REGIONS + 2)},
            {"max_dto_per_ep", Integer.toString(limits.maxDtoPerEp()), "1"},
            {"max_evd_qlen", Integer.toString(limits.maxEvdQlen()), "1"},
            {"max_iov_segments_per_dto", Integer.toString(limits.maxIovSegmentsPerDto()), "1"},
            {"max_message_size", Long.toString(limits.maxMessageSize()), Integer.toString(World.MAX_MESSAGE)},
            {"max_rdma_size", Long.toString(limits.maxRdmaSize()), Integer.toString(World.MAX_MESSAGE)},
        };
        for (String[] need : needs) {
            if (Long.parseLong(need[1]) < Long.parseLong(need[2])) {
                return need[0] + " = " + need[1] + " (the campaign needs at least " + need[2] + ")";
            }
        }
        return null;
    }

    /**
     * {@return a fresh seed with the marker of per-choice steps ({@link #V2}); its low 47 bits random, so the seeds of
     * later episodes (the seed plus the episode's index) keep the marker}
     */
    public static long newSeed() {
        return V2 | (new SecureRandom().nextLong() >>> 17);
    }

    /** What a campaign did. */
    public record Result(long seed, long steps, long episodes, double seconds, String failure, String table) {

        /** {@return whether no violation was found} */
        public boolean passed() {
            return failure == null;
        }

        /** {@return one line: seed, steps, episodes, time} */
        public String summary() {
            return String.format("seed 0x%x: %d steps in %d episodes, %.1f s, %s", seed, steps, episodes, seconds,
                    failure == null ? "no violation" : "VIOLATION");
        }
    }

    /** {@return the result; a failure carries the seed, step, violation and shortest reproduction found} */
    public Result run() {
        long start = System.nanoTime();
        String failure = null;
        while (stepsRun < steps && System.nanoTime() - start < nanos) {
            long episodeSeed = mix(seed + episodes);
            int length = (int) Math.min(EPISODE_STEPS, steps - stepsRun);
            List<Op> ops = generate(episodeSeed, length, perChoice);
            Outcome outcome = execute(episodeSeed, ops, true, start);
            stepsRun += outcome.steps;
            episodes++;
            if (outcome.violation != null) {
                failure = report(episodeSeed, ops, outcome);
                break;
            }
        }
        return new Result(seed, stepsRun, episodes, (System.nanoTime() - start) / 1e9, failure, table());
    }

    /**
     * The steps of one episode, weighted by how much state each call reaches: each choice drawn on its own
     * ({@code perChoice}), or as the first campaign drew them, four numbers a step, for its seeds to replay.
     */
    static List<Op> generate(long episodeSeed, int length, boolean perChoice) {
        SplittableRandom random = new SplittableRandom(episodeSeed);
        Op.Kind[] bag = weights();
        List<Op> ops = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            Op.Kind kind = bag[random.nextInt(bag.length)];
            ops.add(perChoice ? Op.draw(kind, random) : Op.v1(kind, random.nextInt(), random.nextInt(),
                    random.nextInt(), random.nextInt()));
        }
        return ops;
    }

    private static Op.Kind[] weights() {
        Map<Op.Kind, Integer> w = new EnumMap<>(Op.Kind.class);
        w.put(Op.Kind.POST_RECV, 14);
        w.put(Op.Kind.SRQ_POST, 10);
        w.put(Op.Kind.SEND, 16);
        w.put(Op.Kind.SEND_TOO_LONG, 1);
        w.put(Op.Kind.WRITE, 8);
        w.put(Op.Kind.WRITE_UNPRIVILEGED, 1);
        w.put(Op.Kind.READ, 6);
        w.put(Op.Kind.BIND, 3);
        w.put(Op.Kind.WINDOW_RDMA, 5);
        w.put(Op.Kind.BAD_POST, 6);
        w.put(Op.Kind.DEQUEUE, 30);
        w.put(Op.Kind.DRAIN, 3);
        w.put(Op.Kind.DISCONNECT, 2);
        w.put(Op.Kind.RESET, 4);
        w.put(Op.Kind.CONNECT, 4);
        w.put(Op.Kind.FREE_EP, 1);
        w.put(Op.Kind.RECV_QUERY, 4);
        w.put(Op.Kind.SRQ_QUERY, 3);
        w.put(Op.Kind.SRQ_RESIZE, 2);
        w.put(Op.Kind.SRQ_SET_LW, 2);
        w.put(Op.Kind.LMR_FREE, 1);
        w.put(Op.Kind.LMR_CREATE, 2);
        w.put(Op.Kind.LMR_CREATE_DEAD, 1);
        w.put(Op.Kind.BAD_CONTROL, 1);
        List<Op.Kind> bag = new ArrayList<>();
        w.forEach((k, n) -> {
            for (int i = 0; i < n; i++) {
                bag.add(k);
            }
        });
        return bag.toArray(Op.Kind[]::new);
    }

    /** How one run of a sequence ended; {@code calls}: what each step called (null: skipped), when recorded. */
    private record Outcome(int steps, int failedAt, Throwable violation, String hangTrace, String model,
                           List<String> calls) {
    }

    /**
     * Runs {@code ops} on a fresh world in a thread of its own, so a provider that hangs is reported, not waited
     * for.
     */
    private Outcome execute(long episodeSeed, List<Op> ops, boolean count, long campaignStart) {
        AtomicInteger progress = new AtomicInteger();
        // Written by the worker, read once it ended (or, for a hang, not at all).
        List<String> calls = count ? null : Collections.synchronizedList(new ArrayList<>());
        Throwable[] thrown = {null};
        String[] model = {null};
        Thread worker = Thread.ofPlatform().daemon().name("dat-tck-campaign").unstarted(() -> {
            World[] current = {null};
            long opened = System.nanoTime();
            try (World world = new World(open.get(), episodeSeed)) {
                current[0] = world;
                if (TRACE) {
                    System.err.printf("campaign episode 0x%x: world set up in %.1f ms%n", episodeSeed,
                            (System.nanoTime() - opened) / 1e6);
                }
                for (Op op : ops) {
                    long began = TRACE ? System.nanoTime() : 0;
                    boolean applied = world.apply(op);
                    if (calls != null) {
                        calls.add(applied ? world.lastCall() : null);
                    }
                    if (TRACE) {
                        System.err.printf("campaign step %d: %s%s, %.1f ms%n", progress.get(), op,
                                applied ? "" : " (skipped)", (System.nanoTime() - began) / 1e6);
                    }
                    if (count) {
                        counts.get(op.kind())[applied ? 0 : 1]++;
                    }
                    progress.incrementAndGet();
                    if (count && System.nanoTime() - campaignStart > nanos) {
                        break;
                    }
                }
                world.finish();
            } catch (Throwable t) {
                thrown[0] = t;
                model[0] = current[0] == null ? null : current[0].describeModel();
                if (calls != null && current[0] != null && calls.size() == progress.get()
                        && calls.size() < ops.size()) {
                    calls.add(current[0].lastCall());
                }
            }
        });
        worker.start();
        int seen = -1;
        long lastMove = System.nanoTime();
        while (true) {
            try {
                worker.join(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome(progress.get(), progress.get(), e, null, null, null);
            }
            if (!worker.isAlive()) {
                break;
            }
            int now = progress.get();
            if (now != seen) {
                seen = now;
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > TimeUnit.MILLISECONDS.toNanos(stepTimeoutMillis)) {
                StringBuilder trace = new StringBuilder();
                for (StackTraceElement e : worker.getStackTrace()) {
                    trace.append("\n        at ").append(e);
                }
                return new Outcome(now, now, new Violation(Violation.Invariant.NO_HANG, "step " + now + " ("
                        + (now < ops.size() ? ops.get(now)
                        : "the episode's final drain") + ") has not returned for " + stepTimeoutMillis
                        + " ms: the provider hangs"), trace.toString(), null, null);
            }
        }
        Throwable t = thrown[0];
        return new Outcome(progress.get(), progress.get(), t, null, model[0], calls);
    }

    private String report(long episodeSeed, List<Op> ops, Outcome outcome) {
        StringBuilder out = new StringBuilder();
        long globalStep = stepsRun - outcome.steps + outcome.failedAt;
        out.append(String.format("campaign seed 0x%x, episode %d (seed 0x%x), step %d of the episode (%d of the"
                + " campaign): %s", seed, episodes - 1, episodeSeed, outcome.failedAt, globalStep,
                describe(outcome.violation)));
        if (outcome.model != null) {
            out.append("\n    the model at that step:").append(outcome.model);
        }
        if (outcome.hangTrace != null) {
            out.append("\n    the hung call:").append(outcome.hangTrace);
        } else {
            Shrunk shortest = shrink(episodeSeed, ops.subList(0, Math.min(ops.size(), outcome.failedAt + 1)),
                    signature(outcome.violation));
            out.append(script(shortest));
        }
        out.append("\n    replay: ").append(replay(seed, globalStep + 1));
        if (episodes > 1) {
            // Episode k of seed S is episode 0 of seed S + k: the same steps without the episodes before it.
            out.append("\n    this episode alone: ").append(replay(seed + episodes - 1, outcome.failedAt + 1));
        }
        return out.toString();
    }

    private static String describe(Throwable t) {
        if (t instanceof Violation) {
            return t.getMessage() + (t.getCause() == null ? "" : "\n    cause: " + t.getCause());
        }
        return "the kit or provider threw " + t;
    }

    /** A shrunk program: its steps and what each called (null: skipped), the violation it ends in. */
    private record Shrunk(List<Op> ops, List<String> calls, Throwable violation) {
    }

    /**
     * Shrinks a failing episode as Hypothesis shrinks a state machine's program: first delta debugging (chunks of
     * steps removed, the chunk halving, while the shorter sequence still fails with the same violation), then each
     * remaining step's choices simplified one at a time ({@link Op#simpler}: fewer segments, shorter lengths, no
     * flags) while it still fails. Dropping takes at most three quarters of the time, simplifying the rest.
     */
    private Shrunk shrink(long episodeSeed, List<Op> failing, String signature) {
        long start = System.nanoTime();
        long deadline = start + shrinkNanos;
        long dropDeadline = start + shrinkNanos / 4 * 3;
        List<Op> current = new ArrayList<>(failing);
        Outcome base = execute(episodeSeed, current, false, System.nanoTime());
        Shrunk best = reproduces(base, signature) ? new Shrunk(current, base.calls, base.violation)
                : new Shrunk(current, null, null);
        int chunk = Math.max(1, current.size() / 2);
        while (chunk >= 1 && System.nanoTime() < dropDeadline) {
            boolean removed = false;
            for (int from = 0; from < current.size() && System.nanoTime() < dropDeadline; ) {
                List<Op> candidate = new ArrayList<>(current.subList(0, from));
                candidate.addAll(current.subList(Math.min(current.size(), from + chunk), current.size()));
                Outcome o = candidate.isEmpty() ? null : execute(episodeSeed, candidate, false, System.nanoTime());
                if (reproduces(o, signature)) {
                    current = new ArrayList<>(candidate.subList(0, Math.min(candidate.size(), o.failedAt + 1)));
                    best = new Shrunk(current, o.calls, o.violation);
                    removed = true;
                } else {
                    from += chunk;
                }
            }
            if (!removed) {
                chunk /= 2;
            }
        }
        for (int i = 0; i < current.size() && System.nanoTime() < deadline; i++) {
            boolean simplified = true;
            while (simplified && i < current.size() && System.nanoTime() < deadline) {
                simplified = false;
                for (Op simpler : Op.simpler(current.get(i))) {
                    List<Op> candidate = new ArrayList<>(current);
                    candidate.set(i, simpler);
                    Outcome o = execute(episodeSeed, candidate, false, System.nanoTime());
                    if (reproduces(o, signature)) {
                        current = new ArrayList<>(candidate.subList(0, Math.min(candidate.size(), o.failedAt + 1)));
                        best = new Shrunk(current, o.calls, o.violation);
                        simplified = true;
                        break;
                    }
                    if (System.nanoTime() >= deadline) {
                        break;
                    }
                }
            }
        }
        return best;
    }

    private static boolean reproduces(Outcome o, String signature) {
        return o != null && o.hangTrace == null && signature.equals(signature(o.violation));
    }

    /**
     * {@return the shrunk program as a vendor reads it: one DAT call a line, numbered, the violated invariant by name}
     */
    private static String script(Shrunk shrunk) {
        StringBuilder out = new StringBuilder();
        List<Op> ops = shrunk.ops;
        List<String> calls = shrunk.calls;
        out.append(String.format("%n    the shortest program found (%d steps, on a fresh IA with 3 connected EP pairs:"
                + " ep 2k active and ep 2k+1 passive of pair k; 4 registered regions, an SRQ and 2 RMRs as the IA"
                + " allows):", ops.size()));
        for (int i = 0; i < ops.size(); i++) {
            String call = calls == null || i >= calls.size() ? null : calls.get(i);
            out.append(String.format("%n      %3d  %s", i + 1, call != null ? call
                    : ops.get(i) + (calls == null ? "" : " (skipped: nothing it could act on)")));
        }
        if (shrunk.violation instanceof Violation v) {
            out.append(String.format("%n    violated: %s (%s)%n      %s", v.invariant().name(), v.invariant(),
                    v.getMessage()));
        }
        return out.toString();
    }

    /** What makes two violations the same: the message without its numbers (cookies, bytes, steps differ). */
    private static String signature(Throwable violation) {
        if (violation == null) {
            return "";
        }
        String text = violation instanceof Violation ? violation.getMessage() : violation.toString();
        text = text.replaceAll("[0-9a-fA-Fx@]*[0-9][0-9a-fA-Fx@]*", "#");
        return text.substring(0, Math.min(100, text.length()));
    }

    private String table() {
        StringBuilder t = new StringBuilder(String.format("%-20s %10s %10s%n", "step", "applied", "skipped"));
        counts.forEach((k, c) -> t.append(String.format("%-20s %10d %10d%n", k, c[0], c[1])));
        return t.toString();
    }

    /** SplitMix64's finaliser: episode seeds far apart for neighbouring indexes. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
