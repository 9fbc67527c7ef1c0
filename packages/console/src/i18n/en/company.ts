export const company = {
  createTitle: 'Create your company',
  createIntro: 'A company holds your applications, users and settings. You become its owner.',
  nameLabel: 'Company name',
  namePlaceholder: 'For example: Example Ltd.',
  nameRequired: 'Please enter the company name',
  nameTooLong: 'The company name can be at most {{max}} characters',
  createSubmit: 'Create company',
  created: 'Company "{{name}}" created',
  adminTitle: 'Companies are created in the developer console',
  adminIntro:
    'The platform console works with existing companies. Create a company in the developer console; it then appears here too.',
  openDevConsole: 'Open the developer console',
  platformOnlyTitle: 'Companies are created by the platform administrator',
  platformOnlyIntro:
    'On this installation only platform administrators create companies. Ask your platform administrator to create one for you and to add you to it.',
  switcherLabel: 'Current company',
  createAnother: 'Create another company',
};
