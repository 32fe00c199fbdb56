// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatException;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import dat.tck.peer.FaultDrill;
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
    long connQual = -1;

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
        if (timeoutSeconds < 1) {
            return usage(err, "--timeout " + timeoutSeconds + " must be at least 1 second");
        }
        FaultDrill.Fault victimFault = null;
        List<FaultDrill.Fault> phases = null;
        PeerAddress address = null;
        try {
            if (victim) {
                if (connQual < 0 || fault == null || marker == null) {
                    return usage(err, "a victim needs --conn-qual, --fault and --marker");
                }
                victimFault = FaultDrill.Fault.parse(fault);
            } else {
                if (peer == null) {
                    return usage(err, "a survivor needs --peer HOST:CONN_QUAL");
                }
                address = PeerAddress.parse(peer);
                phases = FaultDrill.parseFaults(faults);
            }
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        DatRegistry registry = DatRegistry.load();
        DatIa ia;
        try {
            ia = registry.open(TckCommand.resolveIa(registry, target == null ? null : target.provider,
                    target == null ? null : target.ia));
        } catch (IllegalArgumentException | DatException e) {
            return usage(err, e.getMessage());
        }
        try {
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
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
            if (!ia.isClosed()) {
                ia.close(DatCloseFlags.ABRUPT);
            }
        }
    }

    private static int usage(PrintWriter err, String problem) {
        err.println("dat tck-fault: " + problem);
        err.flush();
        return DatCommand.EXIT_USAGE;
    }
}
