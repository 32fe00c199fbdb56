// SPDX-License-Identifier: Apache-2.0
/**
 * The {@code dat} command: {@code dat info} lists providers and IAs with their attributes, {@code dat tck} runs the
 * conformance kit, {@code dat tck-peer} serves its cross-node rules from another node, {@code dat perf} measures a
 * provider.
 */
module dat.cli {
    requires dat.registry;
    requires dat.tck;
    requires info.picocli;
    // Only to set the level of the registry's System.Logger, which the JDK backs with java.util.logging.
    requires java.logging;

    // picocli reads the command classes' annotations and sets their fields reflectively.
    opens dat.cli to info.picocli;
}
