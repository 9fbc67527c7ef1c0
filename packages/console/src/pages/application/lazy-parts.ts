import { lazy } from 'react';

/** The dialogs of the application screens, each its own chunk, loaded when first opened. */
export const CreateAppModal = lazy(() =>
  import('./create-app.modal.tsx').then((m) => ({ default: m.CreateAppModal })),
);
export const AssignGroupsModal = lazy(() =>
  import('./assign-groups.modal.tsx').then((m) => ({ default: m.AssignGroupsModal })),
);
