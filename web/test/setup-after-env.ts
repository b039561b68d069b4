import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// findBy*/waitFor poll until the state appears; the 1 s default is too short when the suite's
// two workers share two busy cores (an antd toast then arrives later, never wrongly).
configure({ asyncUtilTimeout: 5_000 });
