// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * The exit codes of every {@code dat} command, declared once: the commands return them, picocli's own usage errors
 * map to {@link #USAGE}, and {@link #apply} lists them under each command's {@code --help} and in the generated
 * reference.
 */
final class Exit {

    /** The command ran and the answer is yes: the rules passed, the IAs matched, the run was measured or served. */
    static final int OK = 0;
    /** The command ran and the answer is no: a TCK rule or a peer's session or a fault phase failed, no IA matched. */
    static final int NO = 1;
    /**
     * Bad usage, an unknown or unavailable IA, a provider call that failed or did not return in time, or output
     * that could not be written: the command could not give an answer.
     */
    static final int USAGE = 2;

    private Exit() {
    }

    /** {@return the codes and what each means, for picocli's {@code exitCodeList}} */
    static Map<String, String> list() {
        Map<String, String> list = new LinkedHashMap<>();
        list.put(OK + "", "the command ran and the answer is yes (rules passed, IAs matched, measured, served)");
        list.put(NO + "", "the command ran and the answer is no (a rule, session or fault phase failed; no IA"
                + " matched)");
        list.put(USAGE + "", "bad usage, an unknown or unavailable IA, a provider call that failed or timed out");
        return list;
    }

    /**
     * Makes {@code cli} and every subcommand exit with these codes and list them in their help.
     *
     * @param cli the root command
     * @return {@code cli}
     */
    static CommandLine apply(CommandLine cli) {
        CommandLine.Model.CommandSpec spec = cli.getCommandSpec();
        spec.exitCodeOnInvalidInput(USAGE).exitCodeOnExecutionException(USAGE);
        spec.usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(list());
        cli.getSubcommands().values().forEach(Exit::apply);
        return cli;
    }
}
