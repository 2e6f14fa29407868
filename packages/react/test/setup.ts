import { configure } from '@testing-library/react';

// The identity server hashes passwords and the test files run in parallel on two cores: give answers time.
configure({ asyncUtilTimeout: 5000 });
