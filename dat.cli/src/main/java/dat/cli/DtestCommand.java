// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dat dtest}: OFA uDAPL's {@code dtest} (dapl 2.1.10), server or client, over any jDAT IA, wire-compatible with
 * the C program: see {@link Dtest} for the protocol. The options keep dtest's letters ({@code -h} is the host, so
 * help is {@code --help} only).
 */
@Command(name = "dtest", sortOptions = false,
        description = {"OFA uDAPL's dtest protocol (dapl 2.1.10: RDMA write, RDMA read, message ping-pong),",
            "server (-s, the default) or client (-h HOST), wire-compatible with the C dtest -s / dtest -h HOST;",
            "every byte the protocol defines is checked. Both sides need the same -b.",
            "Exit 0 when the run PASSED, 1 when a check failed, 2 on bad usage."})
final class DtestCommand implements Callable<Integer> {

    /** Largest {@code -b}: dtest registers 2 x 103 buffers of it. */
    static final int MAX_BUF_LEN = 16 << 20;

    @Spec
    CommandSpec spec;

    /** Which IA to run on. */
    @Mixin
    IaTarget target;

    /** {@code --help}, {@code -s}, {@code -h HOST}, and the run. */
    @Mixin
    DtestRole role;

    @Option(names = "-b", paramLabel = "BYTES", defaultValue = "4194304",
            description = "Bytes of each RDMA write, read and ping-pong message (default: ${DEFAULT-VALUE}, dtest's).")
    int bufLen;

    @Option(names = "-B", paramLabel = "N", defaultValue = "1000",
            description = "RDMA writes in the write phase (default: ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "-S", paramLabel = "N", defaultValue = "10",
            description = "Signal one RDMA write in N (default: ${DEFAULT-VALUE}).")
    int signalRate;

    @Option(names = "-P", paramLabel = "NAME",
            description = "Server: the dat.conf provider name the bootstrap hands a C client to open"
                + " (default: the IA's name).")
    String peerProvider;

    @Option(names = "--conn-qual", paramLabel = "N", defaultValue = "" + Dtest.CONN_QUAL,
            description = "Connection qualifier (default: ${DEFAULT-VALUE}, dtest's SERVER_CONN_QUAL).")
    long connQual;

    @Option(names = "--bootstrap-port", paramLabel = "PORT", defaultValue = "" + Dtest.BOOTSTRAP_PORT,
            description = "TCP port of the bootstrap (default: ${DEFAULT-VALUE}, dtest's CONN_PORT).")
    int bootstrapPort;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "Bound of each wait (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** Created by picocli. */
    DtestCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            target.check();
            role.check();
            positive("-b", bufLen);
            if (bufLen > MAX_BUF_LEN) {
                throw new CommandFailure("-b " + bufLen + " is above " + MAX_BUF_LEN + " (each side registers 103"
                        + " buffers of -b bytes twice)");
            }
            positive("-B", burst);
            positive("-S", signalRate);
            OptionChecks.notNegative("--conn-qual", connQual);
            if (bootstrapPort < 1 || bootstrapPort > 65535) {
                throw new CommandFailure("--bootstrap-port must be 1..65535, not " + bootstrapPort);
            }
            OptionChecks.timeout("--timeout", timeoutSeconds);
            Dtest.Config cfg = new Dtest.Config(role.isServer(), role.host, bufLen, burst, Math.min(signalRate, burst),
                    peerProvider, connQual, bootstrapPort, TimeUnit.SECONDS.toNanos(timeoutSeconds));
            return Watchdog.run(OptionChecks.MAX_SECONDS, watchdog -> run(out, err, watchdog, cfg));
        } catch (CommandFailure e) {
            err.println("dat dtest: " + Text.safe(e.getMessage()));
            err.flush();
            return Exit.USAGE;
        }
    }

    static void positive(String option, int value) {
        if (value < 1) {
            throw new CommandFailure(option + " must be at least 1, not " + value);
        }
    }

    private int run(PrintWriter out, PrintWriter err, Watchdog watchdog, Dtest.Config cfg) {
        return role.run("dtest", "-b " + cfg.bufLen() + " -B " + cfg.burst() + " -S " + cfg.signalRate(), target, out,
                err, watchdog, (ia, o) -> new Dtest(ia, cfg, o).run());
    }
}
