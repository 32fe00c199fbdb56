// SPDX-License-Identifier: Apache-2.0
/**
 * The DAT conformance kit: one JUnit Jupiter test per rule and return code of the DAT calls a provider
 * implements, an index of those rules, and a launcher.
 *
 * <p>A vendor extends {@link dat.tck.DatProviderVerification} in its own tests, or runs
 * {@link dat.tck.TckLauncher} (or {@code dat tck}) against a provider found by the registry.
 */
// The qualified exports name dat.cli, which build after this module: javac, not finding them, warns.
@SuppressWarnings("module")
module dat.tck {
    requires transitive dat.api;
    requires dat.registry;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.platform.launcher;
    requires org.junit.platform.reporting;

    exports dat.tck;
    // The kit's other node (dat tck-peer) and the fault suite (dat tck-fault) are tools of the dat command, not
    // part of what a vendor extends or calls: only dat.cli sees them.
    exports dat.tck.peer to dat.cli;
    // JUnit instantiates the nested rule classes and calls their methods reflectively.
    opens dat.tck to org.junit.platform.commons;
    opens dat.tck.rules to org.junit.platform.commons;
}
