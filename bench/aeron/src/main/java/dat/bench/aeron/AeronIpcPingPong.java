// SPDX-License-Identifier: Apache-2.0
package dat.bench.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Aeron's IPC transport in a ping-pong, the Aeron peer of {@code bench/compare.sh}: an embedded media driver, two
 * {@code aeron:ipc} streams (ping and pong), a ping thread that offers a message and spins until the echo arrives,
 * and a pong thread that echoes every message back. Each round trip is timed on the ping thread; the report halves
 * it, so every figure is a one-way latency (RTT / 2) like dat perf's, ucx_perftest's and fi_pingpong's.
 *
 * <p>Set-up choices, and why:
 * <ul>
 * <li>The two worker threads pin themselves to one core each ({@code sched_setaffinity} through FFM, as Aeron has no
 *     affinity setting of its own), as the other peers' client and server do.</li>
 * <li>The driver runs {@link ThreadingMode#SHARED} with a 1 ms sleeping idle strategy: on IPC the data never passes
 *     through the driver, which only moves the publication limit forward, and on a 2-core machine a busy-spinning
 *     driver would take a core from the two threads being measured.</li>
 * <li>IPC term length 16 MiB (the default is 64 MiB): Aeron allows messages up to an eighth of a term, so 2 MiB,
 *     above the largest size of the sweep, for a quarter of the shared memory.</li>
 * <li>Messages above the MTU are fragmented by the publication and put back together by a
 *     {@link FragmentAssembler} on each side, as an Aeron application receives them.</li>
 * <li>Waiting is dat perf's: {@link Thread#onSpinWait()} per empty poll, {@link Thread#yield()} every
 *     {@value #YIELD_EVERY} empty polls.</li>
 * </ul>
 *
 * <p>Usage: {@code AeronIpcPingPong --plan SIZE:ITERS:WARMUP[,...] [--cpus PING,PONG]}; run with
 * {@code --enable-native-access=ALL-UNNAMED} (the pinning) and {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED}
 * (Agrona's {@code Unsafe} access on JDK 25). Prints one JSON object per size on stdout. Exit status 0 measured,
 * 1 a wait ran past {@value #WAIT_LIMIT_SECONDS} s, 2 bad usage.
 */
public final class AeronIpcPingPong {

    private static final String CHANNEL = "aeron:ipc";
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    private static final int IPC_TERM_LENGTH = 16 << 20;
    private static final int YIELD_EVERY = 1024;
    private static final long WAIT_LIMIT_SECONDS = 30;
    private static final long WAIT_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(WAIT_LIMIT_SECONDS);

    /** One size of the plan. */
    record Step(int size, int iters, int warmup) {
    }

    private AeronIpcPingPong() {
    }

    /**
     * Runs the plan.
     *
     * @param args {@code --plan ... [--cpus PING,PONG]}
     * @throws Exception when Aeron fails to start
     */
    public static void main(String[] args) throws Exception {
        List<Step> plan = null;
        int[] cpus = {0, 1};
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--plan" -> plan = parsePlan(value(args, ++i, "--plan"));
                    case "--cpus" -> cpus = parseCpus(value(args, ++i, "--cpus"));
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
            }
            if (plan == null) {
                throw new IllegalArgumentException("--plan is required");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("aeron-pingpong: " + e.getMessage());
            System.err.println("usage: AeronIpcPingPong --plan SIZE:ITERS:WARMUP[,...] [--cpus PING,PONG]");
            System.exit(2);
            return;
        }
        System.exit(run(plan, cpus));
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /**
     * @param text {@code SIZE:ITERS:WARMUP} entries separated by commas
     * @return the steps in the order given
     * @throws IllegalArgumentException naming the bad entry
     */
    static List<Step> parsePlan(String text) {
        List<Step> steps = new ArrayList<>();
        for (String entry : text.split(",", -1)) {
            String[] parts = entry.split(":", -1);
            if (parts.length != 3) {
                throw new IllegalArgumentException("plan entry '" + entry + "' is not SIZE:ITERS:WARMUP");
            }
            int size;
            int iters;
            int warmup;
            try {
                size = Integer.parseInt(parts[0]);
                iters = Integer.parseInt(parts[1]);
                warmup = Integer.parseInt(parts[2]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("plan entry '" + entry + "' has a part that is not a number", e);
            }
            if (size < 1 || iters < 1 || warmup < 0) {
                throw new IllegalArgumentException("plan entry '" + entry
                        + "' needs SIZE >= 1, ITERS >= 1 and WARMUP >= 0");
            }
            steps.add(new Step(size, iters, warmup));
        }
        return steps;
    }

    private static int[] parseCpus(String text) {
        String[] parts = text.split(",", -1);
        try {
            if (parts.length == 2) {
                int ping = Integer.parseInt(parts[0]);
                int pong = Integer.parseInt(parts[1]);
                if (ping >= 0 && pong >= 0) {
                    return new int[] {ping, pong};
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--cpus takes PING,PONG, two CPU numbers, not '" + text + "'", e);
        }
        throw new IllegalArgumentException("--cpus takes PING,PONG, two CPU numbers, not '" + text + "'");
    }

    private static int run(List<Step> plan, int[] cpus) {
        int maxSize = plan.stream().mapToInt(Step::size).max().orElseThrow();
        int maxIters = plan.stream().mapToInt(Step::iters).max().orElseThrow();
        MediaDriver.Context driverContext = new MediaDriver.Context()
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new SleepingMillisIdleStrategy(1))
                .ipcTermBufferLength(IPC_TERM_LENGTH)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
             Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
             ExclusivePublication pingPub = aeron.addExclusivePublication(CHANNEL, PING_STREAM);
             Subscription pingSub = aeron.addSubscription(CHANNEL, PING_STREAM);
             ExclusivePublication pongPub = aeron.addExclusivePublication(CHANNEL, PONG_STREAM);
             Subscription pongSub = aeron.addSubscription(CHANNEL, PONG_STREAM)) {
            if (maxSize > pingPub.maxMessageLength()) {
                System.err.println("aeron-pingpong: size " + maxSize + " is above Aeron's maximum message length "
                        + pingPub.maxMessageLength() + " for a " + IPC_TERM_LENGTH + "-byte term");
                return 2;
            }
            long deadline = System.nanoTime() + WAIT_LIMIT_NANOS;
            while (!pingPub.isConnected() || !pongPub.isConnected()) {
                if (System.nanoTime() - deadline > 0) {
                    System.err.println("aeron-pingpong: the IPC publications did not connect within "
                            + WAIT_LIMIT_SECONDS + " s");
                    return 1;
                }
                Thread.onSpinWait();
            }
            Pong pong = new Pong(pingSub, pongPub, cpus[1]);
            Thread pongThread = Thread.ofPlatform().name("aeron-pong").daemon(true).start(pong);
            Ping ping = new Ping(pingPub, pongSub, maxSize, maxIters);
            int status = ping.run(plan, cpus[0]);
            pong.running = false;
            try {
                pongThread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (pong.failure != null) {
                System.err.println("aeron-pingpong: pong thread: " + pong.failure);
                return 1;
            }
            return status;
        }
    }

    /** The measuring side: offers a message, spins for the echo, records the round trip. */
    private static final class Ping {
        private final Publication pub;
        private final Subscription sub;
        private final UnsafeBuffer message;
        private final long[] samples;
        private final FragmentHandler onEcho;
        private int echoed = -1;

        Ping(Publication pub, Subscription sub, int maxSize, int maxIters) {
            this.pub = pub;
            this.sub = sub;
            ByteBuffer direct = ByteBuffer.allocateDirect(maxSize);
            this.message = new UnsafeBuffer(direct);
            this.message.setMemory(0, maxSize, (byte) 0x5a);
            this.samples = new long[maxIters];
            this.onEcho = new FragmentAssembler((DirectBuffer buffer, int offset, int length, Header header) ->
                    echoed = length);
        }

        int run(List<Step> plan, int cpu) {
            pin(cpu, "ping");
            for (Step step : plan) {
                if (!roundTrips(step.size(), step.warmup(), false)) {
                    return 1;
                }
                long start = System.nanoTime();
                if (!roundTrips(step.size(), step.iters(), true)) {
                    return 1;
                }
                long end = System.nanoTime();
                int n = step.iters();
                Arrays.sort(samples, 0, n);
                System.out.println(String.format(Locale.ROOT,
                        "{\"bytes\": %d, \"iters\": %d, \"warmup\": %d, \"seconds\": %.6f, \"mean_oneway_usec\": %.4f,"
                                + " \"p50_oneway_usec\": %.4f, \"p99_oneway_usec\": %.4f}",
                        step.size(), n, step.warmup(), (end - start) / 1e9, (end - start) / (double) n / 2e3,
                        samples[rank(0.50, n)] / 2e3, samples[rank(0.99, n)] / 2e3));
                System.out.flush();
            }
            return 0;
        }

        private boolean roundTrips(int size, int count, boolean record) {
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                if (!offer(pub, message, 0, size, "ping")) {
                    return false;
                }
                echoed = -1;
                int spins = 0;
                long deadline = 0;
                while (echoed < 0) {
                    if (sub.poll(onEcho, 1) == 0) {
                        spins++;
                        if (spins % YIELD_EVERY == 0) {
                            long now = System.nanoTime();
                            if (deadline == 0) {
                                deadline = now + WAIT_LIMIT_NANOS;
                            } else if (now - deadline > 0) {
                                System.err.println("aeron-pingpong: no echo of a " + size + "-byte message within "
                                        + WAIT_LIMIT_SECONDS + " s");
                                return false;
                            }
                            Thread.yield();
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                }
                long t1 = System.nanoTime();
                if (echoed != size) {
                    System.err.println("aeron-pingpong: the echo of a " + size + "-byte message had " + echoed
                            + " bytes");
                    return false;
                }
                if (record) {
                    samples[i] = t1 - t0;
                }
            }
            return true;
        }
    }

    /** The echoing side. */
    private static final class Pong implements Runnable {
        private final Subscription sub;
        private final Publication pub;
        private final int cpu;
        volatile boolean running = true;
        volatile String failure;

        Pong(Subscription sub, Publication pub, int cpu) {
            this.sub = sub;
            this.pub = pub;
            this.cpu = cpu;
        }

        @Override
        public void run() {
            try {
                pin(cpu, "pong");
                FragmentHandler echo = new FragmentAssembler(
                        (DirectBuffer buffer, int offset, int length, Header header) -> {
                            if (!offer(pub, buffer, offset, length, "pong")) {
                                running = false;
                            }
                        });
                int spins = 0;
                while (running) {
                    if (sub.poll(echo, 1) > 0) {
                        spins = 0;
                    } else if (++spins % YIELD_EVERY == 0) {
                        Thread.yield();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } catch (RuntimeException | Error e) {
                failure = e.toString();
            }
        }
    }

    /** Offers until Aeron takes the message; back pressure and admin actions are retried, the rest is a failure. */
    private static boolean offer(Publication pub, DirectBuffer buffer, int offset, int length, String who) {
        long deadline = 0;
        int spins = 0;
        while (true) {
            long position = pub.offer(buffer, offset, length);
            if (position > 0) {
                return true;
            }
            if (position == Publication.CLOSED || position == Publication.MAX_POSITION_EXCEEDED
                    || position == Publication.NOT_CONNECTED) {
                System.err.println("aeron-pingpong: " + who + " offer failed: " + Publication.errorString(position));
                return false;
            }
            if (++spins % YIELD_EVERY == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + WAIT_LIMIT_NANOS;
                } else if (now - deadline > 0) {
                    System.err.println("aeron-pingpong: " + who + " offer back-pressured for " + WAIT_LIMIT_SECONDS
                            + " s");
                    return false;
                }
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** Nearest-rank percentile index into {@code n} sorted samples, as dat perf computes it. */
    private static int rank(double quantile, int n) {
        return Math.max(0, (int) Math.ceil(quantile * n) - 1);
    }

    private static void pin(int cpu, String who) {
        Affinity.pin(cpu, who);
    }

    /**
     * Thread pinning through {@code sched_setaffinity(2)}: Aeron has no affinity setting of its own, and the JDK
     * none at all. A restricted method, hence the run's {@code --enable-native-access=ALL-UNNAMED}.
     */
    @SuppressWarnings("restricted")
    private static final class Affinity {
        private static final MethodHandle SCHED_SETAFFINITY = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("sched_setaffinity").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        /** {@code sizeof(cpu_set_t)} in glibc: 1024 CPUs. */
        private static final long CPU_SET_BYTES = 128;

        private Affinity() {
        }

        /** Pins the calling thread: on Linux, pid 0 in {@code sched_setaffinity} means the calling thread. */
        static void pin(int cpu, String who) {
            if (cpu >= CPU_SET_BYTES * 8) {
                throw new IllegalArgumentException("CPU " + cpu + " is beyond cpu_set_t");
            }
            int rc;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mask = arena.allocate(CPU_SET_BYTES, Long.BYTES);
                mask.set(ValueLayout.JAVA_LONG, (long) (cpu / 64) * Long.BYTES, 1L << (cpu % 64));
                rc = (int) SCHED_SETAFFINITY.invokeExact(0, CPU_SET_BYTES, mask);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("sched_setaffinity of the " + who + " thread: " + t, t);
            }
            if (rc != 0) {
                throw new IllegalStateException("sched_setaffinity of the " + who + " thread to CPU " + cpu
                        + " failed (is CPU " + cpu + " online and allowed?)");
            }
        }
    }
}
