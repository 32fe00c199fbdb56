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
 * {@code dat dtestsrq}: OFA uDAPL's {@code dtestsrq} (dapl 2.1.10, RC on an SRQ), server or client, over any jDAT
 * IA, wire-compatible with the C program: see {@link DtestSrq} for the protocol. The options keep dtestsrq's
 * letters ({@code -h} is the host, so help is {@code --help} only).
 */
@Command(name = "dtestsrq", sortOptions = false,
        description = {"OFA uDAPL's dtestsrq protocol (dapl 2.1.10: RC EPs on one SRQ, ping-pong bursts),",
            "server (-s, the default) or client (-h HOST), wire-compatible with the C dtestsrq;",
            "every byte the protocol defines is checked. Both sides need the same -b (C's default",
            "is the IB MTU its provider reports, so give it there too).",
            "Exit 0 when the run PASSED, 1 when a check failed, 2 on bad usage."})
final class DtestSrqCommand implements Callable<Integer> {

    /** Largest {@code -b}. */
    static final int MAX_BUF_LEN = 16 << 20;

    @Spec
    CommandSpec spec;

    /** Which IA to run on. */
    @Mixin
    IaTarget target;

    /** {@code --help}, {@code -s}, {@code -h HOST}, and the run. */
    @Mixin
    DtestRole role;

    @Option(names = "-b", paramLabel = "BYTES", defaultValue = "1024",
            description = "Bytes of each message (default: ${DEFAULT-VALUE}, rxe's IB MTU on a 1500-byte link).")
    int bufLen;

    @Option(names = "-c", paramLabel = "N", defaultValue = "1",
            description = "Connections, at most " + DtestSrq.MAX_CONNECTIONS + " (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "-t", paramLabel = "N", defaultValue = "3", description = "Bursts (default: ${DEFAULT-VALUE}).")
    int bursts;

    @Option(names = "-B", paramLabel = "N", defaultValue = "1",
            description = "Messages per connection and burst, at most " + DtestSrq.MAX_BURST
                + " (default: ${DEFAULT-VALUE}).")
    int burstSize;

    @Option(names = "-p", paramLabel = "N", defaultValue = "" + DtestSrq.CONN_QUAL,
            description = "Connection qualifier (default: ${DEFAULT-VALUE}).")
    long connQual;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "Bound of each wait (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** Created by picocli. */
    DtestSrqCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            target.check();
            role.check();
            DtestCommand.positive("-b", bufLen);
            if (bufLen > MAX_BUF_LEN) {
                throw new CommandFailure("-b " + bufLen + " is above " + MAX_BUF_LEN);
            }
            if (bufLen < DtestSrq.HEADER) {
                throw new CommandFailure("-b " + bufLen + " cannot carry the " + DtestSrq.HEADER + "-byte header");
            }
            DtestCommand.positive("-c", connections);
            DtestCommand.positive("-B", burstSize);
            if (connections > DtestSrq.MAX_CONNECTIONS || burstSize > DtestSrq.MAX_BURST) {
                throw new CommandFailure("-c is at most " + DtestSrq.MAX_CONNECTIONS + " and -B at most "
                        + DtestSrq.MAX_BURST);
            }
            OptionChecks.notNegative("-t", bursts);
            OptionChecks.notNegative("-p", connQual);
            OptionChecks.timeout("--timeout", timeoutSeconds);
            DtestSrq.Config cfg = new DtestSrq.Config(role.isServer(), role.host, bufLen, connections, bursts,
                    burstSize, connQual, TimeUnit.SECONDS.toNanos(timeoutSeconds));
            return Watchdog.run(OptionChecks.MAX_SECONDS, watchdog -> run(out, err, watchdog, cfg));
        } catch (CommandFailure e) {
            err.println("dat dtestsrq: " + Text.safe(e.getMessage()));
            err.flush();
            return Exit.USAGE;
        }
    }

    private int run(PrintWriter out, PrintWriter err, Watchdog watchdog, DtestSrq.Config cfg) {
        return role.run("dtestsrq", "-b " + cfg.bufLen() + " -c " + cfg.connections() + " -t " + cfg.bursts()
                + " -B " + cfg.burstSize(), target, out, err, watchdog, (ia, o) -> new DtestSrq(ia, cfg, o).run());
    }
}
