// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.DatRegistry;
import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dat}: the jDAT command. Exit codes: 0 success, 1 the command ran and the answer is "no" (a TCK rule
 * failed, no IA matched), 2 bad usage or an error before the command could run.
 */
@Command(name = "dat", mixinStandardHelpOptions = true, versionProvider = DatCommand.Version.class,
        description = "DAT/uDAPL 1.2 for Java: list providers, run the conformance kit (on one node or two), measure.",
        subcommands = {InfoCommand.class, TckCommand.class, TckPeerCommand.class, TckFaultCommand.class,
                PerfCommand.class,
            CommandLine.HelpCommand.class})
public final class DatCommand implements Runnable {

    /** Exit code: the command ran and the answer is no. */
    static final int EXIT_NO = 1;
    /** Exit code: bad usage, or the command could not run. */
    static final int EXIT_USAGE = 2;

    /**
     * The registry logs a provider that reports itself unavailable at INFO, once, for library users; the command
     * prints those reasons in its own output, so it keeps only warnings (failures to load) on stderr. Held in a field
     * because java.util.logging keeps loggers weakly and would forget the level.
     */
    private static final Logger REGISTRY_LOG = Logger.getLogger("dat.registry");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The provider path this run adds, joined from every {@code --provider-path}; empty when none was given. */
    private final List<String> providerPath = new ArrayList<>();

    /** Created by picocli. */
    public DatCommand() {
    }

    /**
     * {@code --provider-path}: applied before any subcommand runs, through the registry's own property, so every
     * {@code DatRegistry.load()} of this run sees the same providers ({@code dat tck} loads once per rule).
     *
     * @param path jars and directories of jars, separated by the platform's path separator
     */
    @Option(names = "--provider-path", paramLabel = "PATH", scope = CommandLine.ScopeType.INHERIT,
            description = "Also load the providers in these jars and directories of jars (separated by ':', ';' on"
                + " Windows; repeatable; default: $" + DatRegistry.PROVIDER_PATH_ENV + "). Modular jars load into"
                + " a module layer of their own, other jars through their META-INF/services.")
    void providerPath(String path) {
        if (path.isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--provider-path: the path is empty");
        }
        providerPath.add(path);
        System.setProperty(DatRegistry.PROVIDER_PATH_PROPERTY, String.join(File.pathSeparator, providerPath));
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        REGISTRY_LOG.setLevel(Level.WARNING);
        System.exit(execute(new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8), args));
    }

    /**
     * Runs the command with the given streams, for tests and embedding.
     *
     * @param out standard output
     * @param err standard error
     * @param args the arguments
     * @return the exit code
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new DatCommand());
        cli.setOut(out).setErr(err);
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("dat " + line.getCommandName() + ": " + e.getMessage());
            return EXIT_USAGE;
        });
        // --provider-path sets the registry's property for this run only: an embedder's next run starts clean.
        String before = System.getProperty(DatRegistry.PROVIDER_PATH_PROPERTY);
        try {
            return cli.execute(args);
        } finally {
            if (before == null) {
                System.clearProperty(DatRegistry.PROVIDER_PATH_PROPERTY);
            } else {
                System.setProperty(DatRegistry.PROVIDER_PATH_PROPERTY, before);
            }
        }
    }

    /** Reports the jDAT version from the module descriptor. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = DatCommand.class.getModule().getDescriptor() == null ? "unknown"
                    : DatCommand.class.getModule().getDescriptor().rawVersion().orElse("unknown");
            return new String[] {"dat (jDAT) " + version + ", DAT API 1.2, Java " + Runtime.version()};
        }
    }
}
