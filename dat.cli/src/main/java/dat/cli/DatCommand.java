// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatException;
import dat.registry.DatQuerySyntaxException;
import dat.registry.DatRegistry;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Stack;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dat}: the jDAT command. Its exit codes are {@link Exit}'s.
 */
@Command(name = "dat", mixinStandardHelpOptions = true, versionProvider = DatCommand.Version.class,
        description = "DAT/uDAPL 1.2 for Java: list providers, run the conformance kit (on one node or two), measure.")
public final class DatCommand implements Runnable {

    /**
     * The subcommands, by the name their {@code @Command} gives them, in the order the usage lists them
     * ({@code DatCommandTest} checks the names). Added by {@link #commandLine(String...)} rather than named in the
     * annotation: picocli reflects over every command of the tree when it builds it, which was most of a
     * {@code dat info}'s start.
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    private static Map<String, Class<?>> subcommands() {
        Map<String, Class<?>> map = new LinkedHashMap<>();
        map.put("info", InfoCommand.class);
        map.put("tck", TckCommand.class);
        map.put("tck-peer", TckPeerCommand.class);
        map.put("tck-fault", TckFaultCommand.class);
        map.put("perf", PerfCommand.class);
        map.put("dtest", DtestCommand.class);
        map.put("dtestsrq", DtestSrqCommand.class);
        map.put("help", CommandLine.HelpCommand.class);
        return Collections.unmodifiableMap(map);
    }

    /** Environment variable that, set to anything, adds the stack trace to a failure's one line. */
    static final String DEBUG_ENV = "DAT_DEBUG";
    /** System property that, {@code true}, adds the stack trace to a failure's one line. */
    static final String DEBUG_PROPERTY = "dat.debug";

    /**
     * The registry logs a provider that reports itself unavailable at INFO, once, for library users; the command
     * prints those reasons in its own output, so it keeps only warnings (failures to load) on stderr. Held in a field
     * because java.util.logging keeps loggers weakly and would forget the level.
     */
    private static final Logger REGISTRY_LOG = Logger.getLogger("dat.registry");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The provider path this run adds, from every {@code --provider-path} in order; empty when none was given. */
    private final List<String> providerPath = new ArrayList<>();

    /**
     * {@code --provider-path}: applied before any subcommand runs, through the registry's own property, so every
     * {@code DatRegistry.load()} of this run sees the same providers ({@code dat tck} loads once per rule). Each
     * occurrence, before or after the command name, is consumed by {@link ProviderPathConsumer}, which appends to
     * the list; picocli would otherwise refuse a second occurrence of a single-valued option.
     */
    @Option(names = "--provider-path", paramLabel = "PATH", scope = CommandLine.ScopeType.INHERIT,
            parameterConsumer = ProviderPathConsumer.class,
            description = "Also load the providers in these jars and directories of jars (separated by ':', ';' on"
                + " Windows; repeatable, before or after the command name, entries kept in order; given, it"
                + " replaces $" + DatRegistry.PROVIDER_PATH_ENV + "). Modular jars load into a module layer of"
                + " their own, other jars through their META-INF/services.")
    String providerPathOption;

    /** Created by picocli. */
    public DatCommand() {
    }

    private void addProviderPath(String path) {
        providerPath.add(path);
        System.setProperty(DatRegistry.PROVIDER_PATH_PROPERTY, String.join(File.pathSeparator, providerPath));
    }

    /** Appends each {@code --provider-path} value, wherever it stands, to the root command's list. */
    static final class ProviderPathConsumer implements CommandLine.IParameterConsumer {
        /** Created by picocli. */
        ProviderPathConsumer() {
        }

        @Override
        public void consumeParameters(Stack<String> args, CommandLine.Model.ArgSpec argSpec,
                                      CommandLine.Model.CommandSpec commandSpec) {
            CommandLine line = commandSpec.commandLine();
            if (args.isEmpty() || commandSpec.optionsMap().containsKey(args.peek())
                    || line.getSubcommands().containsKey(args.peek())) {
                throw new CommandLine.ParameterException(line, "--provider-path needs a PATH (jars and directories"
                        + " of jars)" + (args.isEmpty() ? "" : ", not '" + Text.safe(args.peek()) + "'"));
            }
            String path = args.pop();
            if (path.isBlank()) {
                throw new CommandLine.ParameterException(line, "--provider-path: the path is empty");
            }
            ((DatCommand) commandSpec.root().userObject()).addProviderPath(path);
        }
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * Runs the command and exits with its code. Standard output is written without {@link System#out}, which
     * would swallow a write error: a full disk or a closed descriptor makes the exit code non-zero with the cause
     * on standard error. {@link System#exit} also ends the JVM when a provider's thread is stuck in a call the
     * command gave up on.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        REGISTRY_LOG.setLevel(Level.WARNING);
        RecordingStream stdout = new RecordingStream(new FileOutputStream(FileDescriptor.out));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err),
                StandardCharsets.UTF_8), true);
        System.exit(execute(out, err, stdout::firstError, args));
    }

    /**
     * Runs the command with the given streams, for tests and embedding.
     *
     * @param out standard output
     * @param err standard error
     * @param args the arguments
     * @return the exit code: the command's, or {@link Exit#USAGE} when its output could not be written
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        return execute(out, err, () -> null, args);
    }

    private static int execute(PrintWriter out, PrintWriter err, Supplier<IOException> outError, String... args) {
        CommandLine cli = commandLine(args);
        cli.setOut(out).setErr(err);
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            report(line.getErr(), line.getCommandSpec().qualifiedName(" "), e);
            return Exit.USAGE;
        });
        // --provider-path sets the registry's property for this run only: an embedder's next run starts clean.
        String before = System.getProperty(DatRegistry.PROVIDER_PATH_PROPERTY);
        int exit;
        try {
            exit = cli.execute(args);
        } catch (RuntimeException | Error e) {
            // picocli hands only Exceptions to the handler: an Error from a provider (a stack overflow, memory
            // exhausted) would otherwise end main with a stack trace and exit 1, the code of a "no".
            report(err, cli.getParseResult() == null ? "dat" : lastCommand(cli), e);
            exit = Exit.USAGE;
        } finally {
            if (before == null) {
                System.clearProperty(DatRegistry.PROVIDER_PATH_PROPERTY);
            } else {
                System.setProperty(DatRegistry.PROVIDER_PATH_PROPERTY, before);
            }
        }
        // PrintWriter and PrintStream swallow IOExceptions; checkError flushes and tells whether one happened.
        if (out.checkError()) {
            IOException cause = outError.get();
            err.println("dat: cannot write to standard output" + (cause == null ? ""
                    : ": " + Text.safe(cause.getMessage() == null ? cause.toString() : cause.getMessage()))
                    + "; the output is incomplete");
            exit = Exit.USAGE;
        }
        err.flush();
        return exit;
    }

    /**
     * {@return the command tree as {@link #execute} runs it and the reference documents it: every command with the
     * exit codes of {@link Exit}}
     */
    static CommandLine commandLine() {
        return commandLine(new String[0]);
    }

    /**
     * {@return the command tree for {@code args}: when they start with a command's name (not {@code help}), the root
     * with that command alone, which parses and runs them as the whole tree would; else the whole tree}
     *
     * @param args the arguments
     */
    static CommandLine commandLine(String... args) {
        CommandLine cli = new CommandLine(new DatCommand());
        Class<?> named = args.length == 0 || "help".equals(args[0]) ? null : SUBCOMMANDS.get(args[0]);
        if (named != null) {
            cli.addSubcommand(args[0], named);
        } else {
            SUBCOMMANDS.forEach(cli::addSubcommand);
        }
        return Exit.apply(cli);
    }

    private static String lastCommand(CommandLine cli) {
        CommandLine.ParseResult parsed = cli.getParseResult();
        while (parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        return parsed.commandSpec().qualifiedName(" ");
    }

    /**
     * Prints one line for a failure that ended a command: its message for the failures the command expects (bad
     * arguments, a DAT error, a file), the exception's class and message for anything else, a provider's bug
     * included. Never a stack trace, unless {@value #DEBUG_ENV} or {@code -D}{@value #DEBUG_PROPERTY} asks for one.
     */
    static void report(PrintWriter err, String command, Throwable e) {
        String prefix = command + ": ";
        if (e instanceof DatQuerySyntaxException) {
            // The message quotes the user's own query and points at a column on the next line.
            e.getMessage().lines().forEach(l -> err.println(prefix + Text.safe(l)));
        } else {
            err.println(prefix + Text.safe(describe(e)));
        }
        if (Boolean.getBoolean(DEBUG_PROPERTY) || System.getenv(DEBUG_ENV) != null) {
            e.printStackTrace(err);
        }
        err.flush();
    }

    /** {@return the message of an expected failure, the class and message of another, the cause's where useful} */
    static String describe(Throwable e) {
        boolean expected = e instanceof CommandFailure || e instanceof IllegalArgumentException
                || e instanceof DatException || e instanceof UncheckedIOException;
        String text = expected && e.getMessage() != null ? e.getMessage() : e.toString();
        if (e instanceof UncheckedIOException u && u.getCause() != null) {
            text += ": " + u.getCause();
        }
        return text;
    }

    /** Standard output that remembers the first write error, which {@link PrintWriter} keeps to itself. */
    static final class RecordingStream extends FilterOutputStream {
        private IOException first;

        RecordingStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw remember(e);
            }
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw remember(e);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw remember(e);
            }
        }

        private synchronized IOException remember(IOException e) {
            if (first == null) {
                first = e;
            }
            return e;
        }

        /** {@return the first write error, or {@code null}} */
        synchronized IOException firstError() {
            return first;
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
