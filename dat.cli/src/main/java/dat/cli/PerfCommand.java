// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatEpAttr;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.peer.PeerAddress;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code dat perf}, in the manner of fi_pingpong and dapltest's performance tests: latency, bandwidth and message
 * rate between two endpoints of one IA of any provider the registry finds, connected through a PSP with DAT's own
 * calls; or, with {@code --peer HOST:CONN_QUAL}, between this node and {@code dat perf serve} on another
 * ({@link PerfPeer}). See {@link PerfEngine} for the threads, {@link PerfClient} for what is timed and how.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        subcommands = PerfCommand.Serve.class,
        description = {"Measure a DAT provider: pingpong latency, streaming bandwidth, message rate.",
            "Two endpoints of one IA are connected through a PSP; a responder thread answers the client.",
            "Across two nodes: dat perf serve --conn-qual=N on one, dat perf TEST --peer=HOST:N on the other."},
        footer = {"", "Columns as fi_pingpong's; MB/sec is 10^6 bytes per second. For a send or write",
            "pingpong, total counts both directions and usec/xfer, p50 and p99 are one-way",
            "latencies (RTT/2); a read pingpong reports whole RDMA read latencies. usec/xfer",
            "is the whole timed loop's mean; p50 and p99 time one iteration in iters/10000 (all",
            "of them up to 19999), so the clock reads stay out of the mean, as fi_pingpong's.",
            "serve answers one client, which chooses the test, op, sizes and iterations."})
final class PerfCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /**
     * Optional to picocli only because a command with a required positional cannot have a subcommand ({@code
     * serve}): a missing one is refused by hand, in picocli's words.
     */
    @Parameters(index = "0", paramLabel = "TEST", arity = "0..1",
            description = "pingpong, bw or rate (required); see the serve subcommand to answer a client on another"
                + " node.")
    String test;

    /** Which IA to measure. */
    @Mixin
    IaTarget target;

    @Option(names = "--op", paramLabel = "OP", defaultValue = "send",
            description = "send (default), write (RDMA write) or read (RDMA read).")
    String op;

    @Option(names = "--sizes", paramLabel = "LIST",
            description = {"Message sizes, e.g. 8,64,4k,64k,1m (k, m, g = powers of 1024).",
                "Default: 8,64,4k,64k,1m; 8 for rate."})
    String sizes;

    @Option(names = "--iters", paramLabel = "N",
            description = {"Timed iterations per size. Default: pingpong " + PerfPlan.PINGPONG_ITERS_DEFAULT
                + ", bw " + PerfPlan.BW_ITERS_DEFAULT + ", rate " + PerfPlan.RATE_ITERS_DEFAULT + ",",
                "fewer from 64k on so each size moves about 256 MiB (pingpong) or 1 GiB."})
    Integer iters;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Untimed iterations before each size (default: 10%% of the iterations).")
    Integer warmup;

    @Option(names = "--peer", paramLabel = "HOST:CONN_QUAL",
            description = "Measure against `dat perf serve` listening there (an IPv6 address in brackets),"
                + " instead of between two endpoints of this process.")
    String peer;

    /** Hidden: {@code serve}'s, refused here with the way to serve rather than picocli's "unknown option". */
    @Option(names = "--conn-qual", paramLabel = "N", hidden = true)
    Long connQual;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "Bound each step: finding the providers, opening the IA, creating and connecting the"
                + " endpoints, each size of the run, closing; a step that takes longer ends the command with what it"
                + " was doing (exit 2). With --peer, also how long to try to connect (default: ${DEFAULT-VALUE}, at"
                + " most 365 days).")
    long timeoutSeconds;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    /** Created by picocli. */
    PerfCommand() {
    }

    /** A failure with a message for the user; the command prints it and exits with 2. */
    static final class PerfException extends CommandFailure {
        private static final long serialVersionUID = 1L;

        PerfException(String message) {
            super(message);
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (test == null) {
            throw new ParameterException(spec.commandLine(), "Missing required parameter: 'TEST'");
        }
        try {
            OptionChecks.timeout("--timeout", timeoutSeconds);
            return Watchdog.run(timeoutSeconds, watchdog -> measure(out, watchdog));
        } catch (CommandFailure e) {
            return failed(spec, e);
        }
    }

    /** {@return {@link Exit#USAGE}, once the command's one line about {@code e} is printed} */
    private static int failed(CommandSpec spec, CommandFailure e) {
        spec.commandLine().getOut().flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName(" ") + ": " + Text.safe(e.getMessage()));
        err.flush();
        return Exit.USAGE;
    }

    private int measure(PrintWriter out, Watchdog watchdog) {
        PerfPlan.Test t = PerfPlan.Test.parse(test);
        if (t == null) {
            throw new PerfException("unknown test '" + test + "': expected pingpong, bw, rate or serve");
        }
        if (connQual != null) {
            throw new PerfException("--conn-qual is for dat perf serve; a client gives --peer HOST:CONN_QUAL");
        }
        PeerAddress peerAddress = peerAddress();
        PerfPlan.Op o = PerfPlan.Op.parse(op);
        if (o == null) {
            throw new PerfException("unknown op '" + op + "': expected send, write or read");
        }
        target.check();
        long[] sizeList = sizeList(t);
        checkIterations();
        checkCounts(sizeList);
        DatRegistry registry = discover(watchdog, target);
        IaEntry entry = target.resolve(registry);
        DatIa ia = open(watchdog, registry, entry);
        long timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        PerfSession session;
        try {
            watchdog.step("creating endpoints on IA " + entry.name());
            session = new PerfSession(ia, o, true, peerAddress == null);
        } catch (DatException e) {
            throw new PerfException("creating endpoints on IA " + entry.name() + ": " + e.getMessage());
        }
        PerfEngine engine = null;
        try {
            requireOp(o, session.limits, entry);
            DatEpAttr attr = session.epAttr();
            long bufferBytes = checkSizes(sizeList, o, attr, session.limits, entry);
            PerfPlan plan = plan(t, o, sizeList, window(o, attr, session.limits), timeoutNanos);
            if (peerAddress == null) {
                watchdog.step("connecting two endpoints of IA " + entry.name(), timeoutNanos);
                session.connect(timeoutNanos);
                allocate(watchdog, session, entry, Math.max(bufferBytes, Long.BYTES), o);
            } else {
                allocate(watchdog, session, entry, PerfPeer.bufferBytes(bufferBytes, sizeList.length), o);
                watchdog.step("connecting to the peer at " + peerAddress, timeoutNanos);
                PerfPeer.connect(session, peerAddress, plan, timeoutNanos);
            }
            watchdog.step("measuring on IA " + entry.name(), 0);
            engine = new PerfEngine(plan, session);
            List<PerfResult> rows = new ArrayList<>();
            if (!json) {
                out.printf(Locale.ROOT, "# dat perf %s: op %s, provider %s, IA %s, window %d%s%n", t.cliName(),
                        o.cliName(), Text.safe(entry.providerName()), Text.safe(entry.name()),
                        t == PerfPlan.Test.PINGPONG ? 1 : plan.window(),
                        peerAddress == null ? "" : ", peer " + peerAddress);
                out.println(header(t));
                out.flush();
            }
            boolean workersEnded = engine.run(row -> {
                rows.add(row);
                if (!json) {
                    out.println(row(t, row));
                    out.flush();
                }
            });
            if (engine.failure() != null) {
                throw new PerfException(engine.failure()
                        + (workersEnded ? "" : "; a worker thread did not stop and was left behind"));
            }
            if (peerAddress != null) {
                watchdog.step("disconnecting from the peer at " + peerAddress, PerfPeer.END_GRACE_NANOS);
                PerfPeer.disconnect(session);
            }
            if (json) {
                out.println(PerfJson.report(entry.providerName(), entry.name(),
                        peerAddress == null ? null : peerAddress.toString(), t.cliName(), o.cliName(), rows));
            }
            out.flush();
            return Exit.OK;
        } catch (DatException e) {
            if (e.type() == DatReturn.MODEL_NOT_SUPPORTED || e.type() == DatReturn.NOT_IMPLEMENTED) {
                throw new PerfException("op " + o.cliName() + " is not supported by IA " + entry.name()
                        + " (provider " + entry.providerName() + "): " + e.getMessage());
            }
            throw new PerfException("on IA " + entry.name() + ": " + e.getMessage());
        } finally {
            // Two steps: the joins bound themselves (at most two rounds of two); the close is the provider's and has
            // --timeout, as documented (an ofi IA's close may wait seconds for a stopped peer to take in a request).
            watchdog.step("stopping the measuring threads on IA " + entry.name(), 4 * PerfEngine.STOP_GRACE.toNanos());
            boolean ended = stopWorkers(session, engine);
            watchdog.step("closing IA " + entry.name() + " of provider " + entry.providerName());
            session.close(ended);
        }
    }

    /** {@return the peer {@code --peer} names, or null to measure between two endpoints of one IA} */
    private PeerAddress peerAddress() {
        if (peer == null) {
            return null;
        }
        try {
            return PeerAddress.parse(peer);
        } catch (IllegalArgumentException e) {
            throw new PerfException("--peer: " + e.getMessage());
        }
    }

    /** {@return the sizes {@code --sizes} lists, or the test's own when it lists none} */
    private long[] sizeList(PerfPlan.Test t) {
        try {
            return PerfPlan.parseSizes(sizes == null ? t.defaultSizes() : sizes);
        } catch (IllegalArgumentException e) {
            throw new PerfException(e.getMessage());
        }
    }

    /** Refuses an {@code --iters} below 1 and a negative {@code --warmup}. */
    private void checkIterations() {
        if (iters != null && iters < 1) {
            throw new PerfException("--iters " + iters + " must be at least 1");
        }
        if (warmup != null && warmup < 0) {
            throw new PerfException("--warmup " + warmup + " must not be negative");
        }
    }

    /**
     * Refuses, before anything is opened, counts whose figures could not be held: more sizes than a plan carries,
     * or a byte total past a {@code long}. Latencies go to a histogram of fixed size, so {@code --iters} itself
     * needs no memory per iteration.
     */
    private void checkCounts(long[] sizeList) {
        if (sizeList.length > PerfPlan.MAX_SIZES) {
            throw new PerfException("--sizes lists " + sizeList.length + " sizes; at most " + PerfPlan.MAX_SIZES);
        }
        if (iters == null) {
            return;
        }
        for (long size : sizeList) {
            if (Math.multiplyHigh(size, 2L * iters) != 0 || size * 2L * iters < 0) {
                throw new PerfException("--iters " + iters + " of size " + PerfPlan.sizeName(size)
                        + " moves more bytes than a 64-bit count holds; give fewer iterations or smaller sizes");
            }
        }
    }

    /** Registers the buffers; memory the JVM cannot give is a failure with the sizes, not a stack trace. */
    private static void allocate(Watchdog watchdog, PerfSession session, IaEntry entry, long bytes, PerfPlan.Op o) {
        watchdog.step("registering buffers of " + PerfPlan.sizeName(bytes) + " on IA " + entry.name());
        try {
            session.allocate(bytes, PerfPeer.remotePrivileges(o));
        } catch (OutOfMemoryError e) {
            throw new PerfException("cannot allocate the buffers of " + bytes + " bytes each (--sizes): " + e);
        }
    }

    /**
     * Stops and joins the workers, closes the IA abruptly, and frees the memory once no worker can touch it. A
     * worker stuck in a provider call is cut off by the IA close; if it still does not end, the arena is left open
     * (leaked) rather than pulled from under it.
     */
    static void release(PerfSession session, PerfEngine engine) {
        session.close(stopWorkers(session, engine));
    }

    /**
     * {@return whether every worker has ended} Stops and joins them, each join bounded by
     * {@link PerfEngine#STOP_GRACE}; a worker still stuck in a provider call is cut off by an abrupt IA close and
     * joined once more.
     */
    private static boolean stopWorkers(PerfSession session, PerfEngine engine) {
        boolean ended = true;
        if (engine != null) {
            if (engine.state == PerfEngine.RUNNING) {
                engine.fail("stopped by an error in the command");
            }
            ended = engine.joinWorkers();
            if (!ended) {
                session.close(false);
                ended = engine.joinWorkers();
            }
        }
        return ended;
    }

    /**
     * {@return the registry to resolve the target in ({@link IaTarget#registry()}), discovery bounded by the watchdog}
     *
     * @param watchdog the command's watchdog
     * @param target the command's {@code --provider} or {@code --ia}
     */
    static DatRegistry discover(Watchdog watchdog, IaTarget target) {
        watchdog.step("discovering providers");
        return target.registry();
    }

    /**
     * {@return the open IA}
     *
     * @param watchdog the command's watchdog, which bounds the provider's open
     * @param registry the registry that found the IA
     * @param entry the IA
     * @throws CommandFailure naming the IA when the open fails
     */
    static DatIa open(Watchdog watchdog, DatRegistry registry, IaEntry entry) {
        watchdog.step("opening IA " + entry.name() + " of provider " + entry.providerName());
        try {
            return registry.open(entry.name());
        } catch (DatException e) {
            throw new CommandFailure("cannot open IA " + entry.name() + ": " + e.getMessage());
        }
    }

    /** RDMA needs a non-zero {@code max_rdma_size}; reads also need read credits both ways. */
    private static void requireOp(PerfPlan.Op o, DatIaAttr limits, IaEntry entry) {
        String why = switch (o) {
            case SEND -> null;
            case WRITE -> limits.maxRdmaSize() <= 0 ? "max_rdma_size is " + limits.maxRdmaSize() : null;
            case READ -> limits.maxRdmaSize() <= 0 ? "max_rdma_size is " + limits.maxRdmaSize()
                    : limits.maxRdmaReadOut() <= 0 ? "max_rdma_read_out is " + limits.maxRdmaReadOut()
                    : limits.maxRdmaReadIn() <= 0 ? "max_rdma_read_in is " + limits.maxRdmaReadIn() : null;
        };
        if (why != null) {
            throw new PerfException("op " + o.cliName() + " is not supported by IA " + entry.name() + " (provider "
                    + entry.providerName() + "): " + why);
        }
    }

    /** {@return the largest size, once every size is within the endpoint's and the IA's limits} */
    private static long checkSizes(long[] sizeList, PerfPlan.Op o, DatEpAttr attr, DatIaAttr limits,
                                   IaEntry entry) {
        String limitName = o == PerfPlan.Op.SEND ? "max_message_size" : "max_rdma_size";
        long limit = o == PerfPlan.Op.SEND ? attr.maxMessageSize() : attr.maxRdmaSize();
        long max = 0;
        for (long size : sizeList) {
            if (size > limit) {
                throw new PerfException("size " + PerfPlan.sizeName(size) + " (" + size + " bytes) is above "
                        + limitName + " " + limit + " of the endpoints on IA " + entry.name() + " (op "
                        + o.cliName() + ")");
            }
            if (size > limits.maxLmrBlockSize()) {
                throw new PerfException("size " + PerfPlan.sizeName(size) + " (" + size
                        + " bytes) is above max_lmr_block_size " + limits.maxLmrBlockSize() + " of IA "
                        + entry.name());
            }
            max = Math.max(max, size);
        }
        return max;
    }

    /** min(max_request_dtos, 64), and no more reads than max_rdma_read_out, nor more than the EVD holds. */
    private static int window(PerfPlan.Op o, DatEpAttr attr, DatIaAttr limits) {
        int window = Math.min(attr.maxRequestDtos(), PerfPlan.MAX_WINDOW);
        window = Math.min(window, Math.min(limits.maxEvdQlen(), PerfSession.DTO_EVD_QLEN));
        if (o == PerfPlan.Op.READ) {
            window = Math.min(window, attr.maxRdmaReadOut());
        }
        return Math.max(1, window);
    }

    private PerfPlan plan(PerfPlan.Test t, PerfPlan.Op o, long[] sizeList, int window, long timeoutNanos) {
        int[] iterList = new int[sizeList.length];
        int[] warmupList = new int[sizeList.length];
        for (int i = 0; i < sizeList.length; i++) {
            iterList[i] = iters != null ? iters : PerfPlan.defaultIters(t, o, sizeList[i]);
            warmupList[i] = warmup != null ? warmup : iterList[i] / 10;
        }
        return new PerfPlan(t, o, sizeList, iterList, warmupList, window, timeoutNanos);
    }

    private static final String ROW = "%-8s %9s %9s %9s %9s %11s %11s %11s";
    private static final String LATENCY = " %9s %9s";

    private static String header(PerfPlan.Test t) {
        String line = String.format(Locale.ROOT, ROW, "bytes", "#sent", "#ack", "total", "time", "MB/sec",
                "usec/xfer", "Mxfers/sec");
        return t == PerfPlan.Test.PINGPONG ? line + String.format(Locale.ROOT, LATENCY, "p50 us", "p99 us") : line;
    }

    private static String row(PerfPlan.Test t, PerfResult r) {
        String line = String.format(Locale.ROOT, ROW, PerfPlan.sizeName(r.bytes()), r.sent(), r.acked(),
                human(r.totalBytes()), fixed(r.seconds()) + "s", fixed(r.mbPerSec()),
                fixed(r.usecPerXfer()), fixed(r.mxfersPerSec()));
        return t == PerfPlan.Test.PINGPONG
                ? line + String.format(Locale.ROOT, LATENCY, fixed(r.p50Usec()), fixed(r.p99Usec())) : line;
    }

    /** Two decimals as fi_pingpong prints them, but two significant digits below 0.01, so small is not 0.00. */
    private static String fixed(double v) {
        if (!Double.isFinite(v)) {
            return "-";
        }
        return v >= 0.01 || v == 0 ? String.format(Locale.ROOT, "%.2f", v)
                : new BigDecimal(v).round(new MathContext(2)).toPlainString();
    }

    /** Bytes with a binary suffix, as fi_pingpong's {@code total} column: 640, 62.5k, 1.2m, 3.0g. */
    private static String human(long bytes) {
        if (bytes < 1024) {
            return Long.toString(bytes);
        }
        String[] suffixes = {"k", "m", "g", "t"};
        double v = bytes;
        int i = -1;
        while (v >= 1024 && i < suffixes.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f%s", v, suffixes[i]);
    }

    /**
     * {@code dat perf serve}: listens on {@code --conn-qual} and answers one client on another node, which chooses
     * what is measured. The client's options are refused with that reason rather than picocli's "unknown option",
     * and so are {@code dat perf}'s own given before {@code serve}, which would otherwise be dropped unread.
     */
    @Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Answer one dat perf client on another node (dat perf TEST --peer HOST:CONN_QUAL),",
                "which chooses the test, op, sizes and iterations."})
    static final class Serve implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @ParentCommand
        PerfCommand parent;

        /** Which IA to listen on. */
        @Mixin
        IaTarget target;

        @Option(names = "--conn-qual", paramLabel = "N", required = true,
                description = "The connection qualifier to listen on (the client gives --peer HOST:N).")
        long connQual;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
                description = "How long to wait for the client, and a bound on each step of the run, as dat perf's"
                    + " (default: ${DEFAULT-VALUE}, at most 365 days).")
        long timeoutSeconds;

        private static final List<String> CLIENT_OPTIONS = List.of("--op", "--sizes", "--iters", "--warmup", "--json",
                "--peer");

        /** Hidden: the client's options, named only to be refused with the reason. */
        @Option(names = {"--op", "--sizes", "--iters", "--warmup", "--peer"}, paramLabel = "VALUE", hidden = true)
        String clientOption;

        /** Hidden, as {@link #clientOption}. */
        @Option(names = "--json", hidden = true)
        boolean json;

        /** Created by picocli. */
        Serve() {
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try {
                if (clientOption != null || json) {
                    // One field holds all the client's options, so the name is the one typed.
                    String option = spec.commandLine().getParseResult().originalArgs().stream()
                            .map(arg -> arg.split("=", 2)[0]).filter(CLIENT_OPTIONS::contains).findFirst()
                            .orElse("--json");
                    throw new PerfException(option + " is for the client: dat perf serve runs what the client"
                            + " (dat perf TEST --peer HOST:CONN_QUAL) asks for");
                }
                // --provider-path is the root's, copied to every command: it may stand anywhere.
                if (parent.spec.commandLine().getParseResult().matchedArgs().stream().anyMatch(a -> !a.inherited())) {
                    throw new PerfException("give the options of dat perf serve after serve");
                }
                target.check();
                OptionChecks.notNegative("--conn-qual", connQual);
                OptionChecks.timeout("--timeout", timeoutSeconds);
                return Watchdog.run(timeoutSeconds, watchdog -> serve(out, watchdog));
            } catch (CommandFailure e) {
                return failed(spec, e);
            }
        }

        private int serve(PrintWriter out, Watchdog watchdog) {
            DatRegistry registry = discover(watchdog, target);
            IaEntry entry = target.resolve(registry);
            DatIa ia = open(watchdog, registry, entry);
            try {
                watchdog.step("serving on IA " + entry.name(), 0);
                PerfPeer.Served served = PerfPeer.serve(ia, connQual, TimeUnit.SECONDS.toNanos(timeoutSeconds),
                        address -> {
                            out.println("dat perf serve: listening on " + address + " (IA " + Text.safe(entry.name())
                                    + ", provider " + Text.safe(entry.providerName()) + ") for " + timeoutSeconds
                                    + " s");
                            out.flush();
                        },
                        refused -> {
                            out.println("dat perf serve: refused a connection from " + refused);
                            out.flush();
                        });
                PerfPlan plan = served.plan();
                out.println("dat perf serve: served " + plan.test().cliName() + ", op " + plan.op().cliName()
                        + ", sizes " + Arrays.stream(plan.sizes()).mapToObj(PerfPlan::sizeName)
                                .collect(Collectors.joining(",")) + ", to " + served.client());
                out.flush();
                return Exit.OK;
            } catch (DatException e) {
                throw new PerfException("on IA " + entry.name() + ": " + e.getMessage());
            } finally {
                watchdog.step("closing IA " + entry.name() + " of provider " + entry.providerName());
                if (!ia.isClosed()) {
                    ia.close(DatCloseFlags.ABRUPT);
                }
            }
        }
    }
}
