// Every file of the test target sees TestSupport (temporary folders, files, the bundled catalog).
@_exported import TestSupport
