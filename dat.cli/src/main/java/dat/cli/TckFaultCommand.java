// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.peer.PeerAddress;
import dat.tck.peer.FaultDrill;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dat tck-fault}: the two ends of the fault suite ({@link FaultDrill}), one subcommand per role, each with its
 * own required options. On the victim node a script runs {@code dat tck-fault victim} once per fault and strikes
 * ({@code kill -9}, link down and up) when the victim's marker file appears; on the other node {@code dat tck-fault
 * survivor} keeps traffic in flight through each fault and checks what the surviving side gets.
 */
@Command(name = "tck-fault", mixinStandardHelpOptions = true, sortOptions = false,
        subcommands = {TckFaultCommand.Victim.class, TckFaultCommand.Survivor.class},
        description = {"The fault suite: a victim that serves one connection until a fault ends it, and a survivor",
            "that keeps sends, RDMA writes and SRQ receives in flight through each fault and checks the events,",
            "the completions, the freed resources and a new connection."})
final class TckFaultCommand {

    /** Created by picocli. */
    TckFaultCommand() {
    }

    /** {@code dat tck-fault victim}: serves one connection until the fault the script strikes ends it. */
    @Command(name = "victim", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Serve one connection until a fault ends it; write the marker file once traffic flows",
                "both ways, so the script on this node knows when to strike."})
    static final class Victim implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        /** Which IA to serve on. */
        @Mixin
        IaTarget target;

        @Option(names = "--conn-qual", paramLabel = "N", required = true,
                description = "The connection qualifier to listen on.")
        long connQual;

        @Option(names = "--fault", paramLabel = "FAULT", required = true,
                description = "The fault the script strikes: kill, link, close or none.")
        String fault;

        @Option(names = "--marker", paramLabel = "FILE", required = true,
                description = "Written once traffic flows both ways.")
        Path marker;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
                description = "How long to serve (default: ${DEFAULT-VALUE}).")
        long timeoutSeconds;

        /** Created by picocli. */
        Victim() {
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            return role(spec, target, timeoutSeconds, () -> {
                OptionChecks.notNegative("--conn-qual", connQual);
                FaultDrill.Fault victimFault = FaultDrill.Fault.parse(fault);
                return ia -> FaultDrill.victim(ia, connQual, victimFault, marker, Duration.ofSeconds(timeoutSeconds),
                        out) == 0 ? Exit.OK : Exit.NO;
            });
        }
    }

    /** {@code dat tck-fault survivor}: keeps traffic in flight through each victim's fault and checks the outcome. */
    @Command(name = "survivor", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Connect to each victim in turn, keep sends, RDMA writes and SRQ receives in flight",
                "through its fault, and check the events, completions, freed resources and a new connection."})
    static final class Survivor implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        /** Which IA to run on. */
        @Mixin
        IaTarget target;

        @Option(names = "--peer", paramLabel = "HOST:CONN_QUAL", required = true,
                description = "Where the victims listen.")
        String peer;

        @Option(names = "--faults", paramLabel = "LIST", defaultValue = "kill,link,close,none",
                description = "The phases, in the victim script's order (default: ${DEFAULT-VALUE}).")
        String faults;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
                description = "Per phase, to connect and then to see the end (default: ${DEFAULT-VALUE}).")
        long timeoutSeconds;

        /** Created by picocli. */
        Survivor() {
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            return role(spec, target, timeoutSeconds, () -> {
                PeerAddress address = PeerAddress.parse(peer);
                List<FaultDrill.Fault> phases = FaultDrill.parseFaults(faults);
                return ia -> {
                    // A provider on a device (verbs) must leave nothing on it; loopback has none to look at.
                    boolean device = !"loopback".equals(ia.providerAttr().providerName());
                    List<FaultDrill.Phase> result = FaultDrill.survivor(ia, address.host(), address.connQual(),
                            phases, Duration.ofSeconds(timeoutSeconds), device, out);
                    long failed = result.stream().filter(p -> !p.passed()).count();
                    out.println("dat tck-fault survivor: " + result.size() + " phases, " + failed + " failed");
                    out.flush();
                    return failed == 0 ? Exit.OK : Exit.NO;
                };
            });
        }
    }

    /** A role's checks of its options, done before anything is opened, and then what it runs on the open IA. */
    private interface Checked {
        Function<DatIa, Integer> check();
    }

    /**
     * Runs one role: checks its options, then opens the IA and runs it on the watchdog's thread. Each phase bounds
     * its own waits by the timeout; the watchdog only catches a provider stuck past them.
     */
    private static int role(CommandSpec spec, IaTarget target, long timeoutSeconds, Checked role) {
        PrintWriter err = spec.commandLine().getErr();
        try {
            target.check();
            OptionChecks.timeout("--timeout", timeoutSeconds);
            Function<DatIa, Integer> run = role.check();
            return Watchdog.run(timeoutSeconds, watchdog -> {
                DatRegistry registry = PerfCommand.discover(watchdog, target);
                IaEntry entry = target.resolve(registry);
                DatIa ia = PerfCommand.open(watchdog, registry, entry);
                try {
                    watchdog.step("running the fault suite on IA " + Text.safe(entry.name()), 0);
                    return run.apply(ia);
                } finally {
                    watchdog.step("closing IA " + Text.safe(entry.name()));
                    if (!ia.isClosed()) {
                        ia.close(DatCloseFlags.ABRUPT);
                    }
                }
            });
        } catch (IllegalArgumentException e) {
            err.println("dat tck-fault " + spec.name() + ": " + Text.safe(e.getMessage()));
            err.flush();
            return Exit.USAGE;
        }
    }
}
