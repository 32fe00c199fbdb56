// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.tck.FaultDrill;
import dat.tck.PeerAddress;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dat tck-fault}: the two ends of the fault suite ({@link FaultDrill}). On the victim node a script runs
 * {@code dat tck-fault victim} once per fault and strikes ({@code kill -9}, link down and up) when the victim's
 * marker file appears; on the other node {@code dat tck-fault survivor} keeps traffic in flight through each fault
 * and checks what the surviving side gets. Exit 0 when every phase passed, 1 when one failed, 2 on bad usage.
 */
@Command(name = "tck-fault", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The fault suite: a victim that serves one connection until a fault ends it, and a survivor",
            "that keeps sends, RDMA writes and SRQ receives in flight through each fault and checks the events,",
            "the completions, the freed resources and a new connection.",
            "Exit 0 when every phase passed; 1 when one failed; 2 on bad usage."})
final class TckFaultCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ROLE", description = "victim or survivor")
    String role;

    @ArgGroup(exclusive = true)
    TckPeerCommand.Target target;

    @Option(names = "--conn-qual", paramLabel = "N", description = "victim: the connection qualifier to listen on")
    Long connQual;

    @Option(names = "--fault", paramLabel = "FAULT", description = "victim: kill, link, close or none")
    String fault;

    @Option(names = "--marker", paramLabel = "FILE", description = "victim: written once traffic flows both ways")
    Path marker;

    @Option(names = "--peer", paramLabel = "HOST:CONN_QUAL", description = "survivor: where the victims listen")
    String peer;

    @Option(names = "--faults", paramLabel = "LIST", defaultValue = "kill,link,close,none",
            description = "survivor: the phases, in the victim script's order (default: ${DEFAULT-VALUE})")
    String faults;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "victim: how long to serve; survivor: per phase, to connect and then to see the end"
                    + " (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    /** Created by picocli. */
    TckFaultCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean victim = "victim".equals(role);
        if (!victim && !"survivor".equals(role)) {
            return usage(err, "ROLE is victim or survivor, not " + role);
        }
        try {
            OptionChecks.timeout("--timeout", timeoutSeconds);
            if (victim) {
                if (connQual == null || fault == null || marker == null) {
                    return usage(err, "a victim needs --conn-qual, --fault and --marker");
                }
                OptionChecks.notNegative("--conn-qual", connQual);
                FaultDrill.Fault victimFault = FaultDrill.Fault.parse(fault);
                return Watchdog.run(timeoutSeconds, watchdog -> run(out, watchdog, victimFault, null, null));
            }
            if (peer == null) {
                return usage(err, "a survivor needs --peer HOST:CONN_QUAL");
            }
            PeerAddress address = PeerAddress.parse(peer);
            List<FaultDrill.Fault> phases = FaultDrill.parseFaults(faults);
            return Watchdog.run(timeoutSeconds, watchdog -> run(out, watchdog, null, address, phases));
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
    }

    /** One role's run, on the watchdog's thread; {@code victimFault} for a victim, the rest for a survivor. */
    private int run(PrintWriter out, Watchdog watchdog, FaultDrill.Fault victimFault, PeerAddress address,
                    List<FaultDrill.Fault> phases) {
        DatRegistry registry = PerfCommand.discover(watchdog);
        IaEntry entry = IaTarget.resolve(registry, target == null ? null : target.provider,
                target == null ? null : target.ia);
        DatIa ia = PerfCommand.open(watchdog, registry, entry);
        try {
            // Each phase bounds its own waits by the timeout; the watchdog only catches a provider stuck past them.
            watchdog.step("running the fault suite on IA " + Text.safe(entry.name()), 0);
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            boolean victim = victimFault != null;
            if (victim) {
                return FaultDrill.victim(ia, connQual, victimFault, marker, timeout, out) == 0 ? 0
                        : DatCommand.EXIT_NO;
            }
            // A provider on a device (verbs) must leave nothing on it; loopback has none to look at.
            boolean device = !"loopback".equals(ia.providerAttr().providerName());
            List<FaultDrill.Phase> result = FaultDrill.survivor(ia, address.host(), address.connQual(), phases,
                    timeout, device, out);
            long failed = result.stream().filter(p -> !p.passed()).count();
            out.println("dat tck-fault survivor: " + result.size() + " phases, " + failed + " failed");
            out.flush();
            return failed == 0 ? 0 : DatCommand.EXIT_NO;
        } finally {
            watchdog.step("closing IA " + Text.safe(entry.name()));
            if (!ia.isClosed()) {
                ia.close(DatCloseFlags.ABRUPT);
            }
        }
    }

    private static int usage(PrintWriter err, String problem) {
        err.println("dat tck-fault: " + Text.safe(problem));
        err.flush();
        return DatCommand.EXIT_USAGE;
    }
}
