// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatException;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import java.io.PrintWriter;
import java.util.function.BiConsumer;
import picocli.CommandLine.Option;

/**
 * What {@code dat dtest} and {@code dat dtestsrq} share, as OFA's two programs do: the role options in dtest's
 * letters ({@code -s}, {@code -h HOST}, so help is {@code --help} only) and the run of a protocol on the IA the
 * command names, with the C programs' closing line when it fails.
 */
final class DtestRole {

    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "-s", description = "Run as the server (the default).")
    boolean server;

    @Option(names = "-h", paramLabel = "HOST", description = "Run as the client of the server on HOST.")
    String host;

    /** Created by picocli. */
    DtestRole() {
    }

    /** Refuses {@code -s} with {@code -h}. */
    void check() {
        if (server && host != null) {
            throw new CommandFailure("give -s or -h HOST, not both");
        }
    }

    /** {@return true for the server role: no {@code -h}} */
    boolean isServer() {
        return host == null;
    }

    /**
     * Opens the IA {@code target} names and runs {@code protocol} on it.
     *
     * @param command the subcommand's name, which starts every line it prints
     * @param settings the options the header line shows
     * @return {@link Exit#OK} when the protocol passed, {@link Exit#NO} when a check or a DAT call failed
     */
    int run(String command, String settings, IaTarget target, PrintWriter out, PrintWriter err, Watchdog watchdog,
            BiConsumer<DatIa, PrintWriter> protocol) {
        DatRegistry registry = PerfCommand.discover(watchdog, target);
        IaEntry entry = target.resolve(registry);
        DatIa ia = PerfCommand.open(watchdog, registry, entry);
        String role = isServer() ? "server" : "client";
        watchdog.step("running the " + command + " protocol on IA " + Text.safe(entry.name()), 0);
        out.println("dat " + command + ": " + role + " on IA " + Text.safe(entry.name()) + " (provider "
                + Text.safe(ia.providerAttr().providerName()) + ", " + ia.address().getHostAddress() + "), "
                + settings);
        out.flush();
        try {
            protocol.accept(ia, out);
            return Exit.OK;
        } catch (Dtest.Failure | DatException e) {
            out.println("dat " + command + ": " + role + ": DAPL Test Complete. FAILED");
            out.flush();
            err.println("dat " + command + ": " + Text.safe(e.getMessage()));
            err.flush();
            return Exit.NO;
        }
    }
}
