package dat.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code dat}: the jDAT command. Exit codes: 0 success, 1 the command ran and the answer is "no" (a TCK rule
 * failed, no IA matched), 2 bad usage or an error before the command could run.
 */
@Command(name = "dat", mixinStandardHelpOptions = true, versionProvider = DatCommand.Version.class,
        description = "DAT/uDAPL 1.2 for Java: list providers, run the conformance kit (on one node or two), measure.",
        subcommands = {InfoCommand.class, TckCommand.class, TckPeerCommand.class, PerfCommand.class,
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
    private static final java.util.logging.Logger REGISTRY_LOG = java.util.logging.Logger.getLogger("dat.registry");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Created by picocli. */
    public DatCommand() {
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
        REGISTRY_LOG.setLevel(java.util.logging.Level.WARNING);
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
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
        return cli.execute(args);
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
