// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatException;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.tck.peer.TckPeer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dat tck-peer}: the remote end of the kit's cross-node rules. Listens on a connection qualifier of one IA
 * and serves the sessions of a {@code dat tck --peer HOST:CONN_QUAL} run on another node, printing one line per
 * session; exits 0 once that run said "bye" and every session ended cleanly, 1 when a session failed or the timeout
 * came first, 2 on bad usage or when it cannot listen.
 */
@Command(name = "tck-peer", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve the cross-node rules of a TCK run on another node",
            "(dat tck --peer HOST:CONN_QUAL), printing one line per session.",
            "Exit 0 when the run said bye and every session ended cleanly;",
            "1 when a session failed or the timeout came first; 2 on bad usage."})
final class TckPeerCommand implements Callable<Integer> {

    /** Default of {@code --timeout}, in seconds. */
    static final long TIMEOUT_DEFAULT = 900;

    @Spec
    CommandSpec spec;

    /** Which IA to listen on. */
    @Mixin
    IaTarget target;

    @Option(names = "--conn-qual", paramLabel = "N", required = true,
            description = "The connection qualifier to listen on (the run connects to HOST:N).")
    long connQual;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "" + TIMEOUT_DEFAULT,
            description = "Stop after this long even without a bye (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** Created by picocli. */
    TckPeerCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            target.check();
            OptionChecks.notNegative("--conn-qual", connQual);
            OptionChecks.timeout("--timeout", timeoutSeconds);
            return Watchdog.run(timeoutSeconds, watchdog -> serve(out, err, watchdog));
        } catch (CommandFailure e) {
            return usage(err, e.getMessage());
        }
    }

    private int serve(PrintWriter out, PrintWriter err, Watchdog watchdog) {
        DatRegistry registry = PerfCommand.discover(watchdog, target);
        IaEntry entry = target.resolve(registry);
        String iaName = Text.safe(entry.name());
        DatIa ia = PerfCommand.open(watchdog, registry, entry);
        try {
            TckPeer peer;
            try {
                watchdog.step("listening on conn_qual " + connQual + " of IA " + iaName);
                peer = TckPeer.open(ia, connQual);
            } catch (DatException e) {
                throw new CommandFailure("cannot listen on conn_qual " + connQual + " of IA " + iaName + ": "
                        + e.getMessage());
            }
            try (peer) {
                out.println("dat tck-peer: listening on " + peer.address() + " (IA " + iaName + ", provider "
                        + Text.safe(ia.providerAttr().providerName()) + ") for " + timeoutSeconds + " s");
                out.flush();
                watchdog.step("serving the cross-node rules on IA " + iaName, TimeUnit.SECONDS.toNanos(timeoutSeconds));
                TckPeer.Summary summary = peer.serve(Duration.ofSeconds(timeoutSeconds), report -> {
                    out.println(Text.block(report));
                    out.flush();
                });
                int failed = summary.failures().size();
                String sessions = summary.sessions().size() + (summary.sessions().size() == 1 ? " session, "
                        : " sessions, ") + failed + " failed";
                if (!summary.byeReceived()) {
                    out.println("dat tck-peer: no bye within " + timeoutSeconds + " s; " + sessions);
                } else {
                    out.println("dat tck-peer: bye received; " + sessions);
                }
                out.flush();
                return summary.clean() ? Exit.OK : Exit.NO;
            }
        } catch (DatException e) {
            out.flush();
            err.println("dat tck-peer: the peer's own PSP or EVD failed: " + Text.safe(e.getMessage()));
            err.flush();
            return Exit.NO;
        } finally {
            watchdog.step("closing IA " + iaName);
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    private static int usage(PrintWriter err, String problem) {
        err.println("dat tck-peer: " + Text.safe(problem));
        err.flush();
        return Exit.USAGE;
    }
}
