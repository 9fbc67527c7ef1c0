import { lazy } from 'react';

/**
 * The dialogs and editors of the organisation screens, each its own chunk: the screens show
 * without the form, upload and tree-select code, which loads when a dialog first opens.
 */
export const CreateUserModal = lazy(() =>
  import('./create-user.modal.tsx').then((m) => ({ default: m.CreateUserModal })),
);
export const ImportUsersModal = lazy(() =>
  import('./import-users.modal.tsx').then((m) => ({ default: m.ImportUsersModal })),
);
export const ResetPasswordModal = lazy(() =>
  import('./reset-password.modal.tsx').then((m) => ({ default: m.ResetPasswordModal })),
);
export const DepartmentFormModal = lazy(() =>
  import('./department-form.modal.tsx').then((m) => ({ default: m.DepartmentFormModal })),
);
export const MoveDepartmentModal = lazy(() =>
  import('./move-department.modal.tsx').then((m) => ({ default: m.MoveDepartmentModal })),
);
export const AddMembersModal = lazy(() =>
  import('./add-members.modal.tsx').then((m) => ({ default: m.AddMembersModal })),
);
export const DepartmentsEditor = lazy(() =>
  import('./departments-editor.tsx').then((m) => ({ default: m.DepartmentsEditor })),
);
